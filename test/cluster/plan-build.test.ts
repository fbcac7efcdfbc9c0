import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildPlan, formatPlanTable, type PlanInput } from '../../src/cli/plan-build.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import type { Policy } from '../../src/spec/types.js';

const fixture = (f: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));
const policy = parse(readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8')) as Policy;
const snapshot = buildSnapshot(fixture('nodes.json'), fixture('pods.json'), new Date('2026-12-01T10:00:00Z'));
const input = (existing: Record<string, string>, over: Partial<PlanInput> = {}): PlanInput => ({
  cluster: 'prod',
  repo: { policy, errors: [], algorithms: [] },
  snapshot,
  existing,
  ...over,
});

describe('buildPlan', () => {
  const first = buildPlan(input({}));

  it('fills the contract: one pools entry per node, empty placements and scaling, files to create', () => {
    expect(first.output.cluster).toBe('prod');
    expect(first.output.pools).toHaveLength(13);
    expect(first.output.placements).toEqual([]);
    expect(first.output.scaling).toEqual([]);
    expect(first.output.files).toEqual([
      { path: 'clusters/prod/kustomization.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-a100-01.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-a100-02.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-h100-01.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-t4-01.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-t4-03.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/kustomization.yaml', change: 'create' },
    ]);
    expect(first.changes.map((c) => c.path)).toEqual(first.output.files.map((f) => f.path));
  });

  it('second pass over its own output changes nothing', () => {
    const written = Object.fromEntries(first.changes.map((c) => [c.path, c.content!]));
    const again = buildPlan(input(written));
    expect(again.output.files).toEqual([]);
    expect(again.changes).toEqual([]);
  });

  it('updates a hand-edited file, deletes the file of a node no longer in the cluster, keeps other clusters alone', () => {
    const written = Object.fromEntries(first.changes.map((c) => [c.path, c.content!]));
    written['clusters/prod/nodes/gpu-t4-01.yaml'] = 'edited by hand\n';
    written['clusters/prod/nodes/gpu-gone-01.yaml'] = 'old\n';
    written['clusters/other/nodes/x.yaml'] = 'not ours\n';
    expect(buildPlan(input(written)).output.files).toEqual([
      { path: 'clusters/prod/nodes/gpu-gone-01.yaml', change: 'delete' },
      { path: 'clusters/prod/nodes/gpu-t4-01.yaml', change: 'update' },
    ]);
  });

  it('the cluster kustomization lists the algorithm folders that exist after the change', () => {
    const written = Object.fromEntries(first.changes.map((c) => [c.path, c.content!]));
    written['clusters/prod/algorithms/resnet/kustomization.yaml'] = 'x';
    const plan = buildPlan(
      input(written, {
        algorithmFiles: [
          { path: 'clusters/prod/algorithms/bert/kustomization.yaml', content: 'y' },
          { path: 'clusters/prod/algorithms/resnet/kustomization.yaml', content: null },
        ],
      }),
    );
    const root = plan.changes.find((c) => c.path === 'clusters/prod/kustomization.yaml')!;
    expect(parse(root.content!).resources).toEqual(['nodes', 'algorithms/bert']);
    expect(plan.output.files).toContainEqual({
      path: 'clusters/prod/algorithms/resnet/kustomization.yaml',
      change: 'delete',
    });
  });

  it('the human table shows model, free/allocatable, from → to and reason', () => {
    const text = formatPlanTable(first.output, snapshot);
    const line = (node: string) => text.split('\n').find((l) => l.startsWith(`${node} `))!;
    expect(line('gpu-a100-01')).toMatch(
      /^gpu-a100-01\s+NVIDIA-A100-SXM4-80GB\s+8\/8\s+- → test\s+TestPool: /,
    );
    expect(line('gpu-t4-02')).toMatch(/Tesla-T4\s+3\/4\s+-\s+ForeignWorkload: 1 of 4 GPUs/);
    expect(line('ip-10-0-1-11.ec2.internal')).toMatch(/\s-\s+-\s+-\s+NoGPU: /);
    expect(text).toContain('  create clusters/prod/nodes/gpu-a100-01.yaml');
  });
});
