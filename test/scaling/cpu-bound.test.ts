/**
 * Issue 23 item 7 (F06, fleet-faults): a free GPU on a node with no cpu left is not capacity.
 * gpu-s1 (short-task) has 2 free T4s but its 8 cpu are taken by the two replicas (4 cpu, 16Gi
 * each); gpu-u1 (unused) is empty. Before, gpuops scaled 2 → 3 onto gpu-s1, then 3 → 4 while the
 * third pod was Pending on `Insufficient cpu`, and never moved gpu-u1 in. Through `gpuops plan`
 * as F06's run.sh drives it, with neighbours across each boundary (cpu, memory, pod slots).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const DIR = fileURLToPath(new URL('../fixtures/fleet-faults/F06/', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-f06-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Decision {
  algorithm: string;
  action: string;
  replicas: { from: number; to: number };
  nodes: string[];
  reason: string;
  message: string;
}

/** F06's nodes with gpu-s1's allocatable changed (`over`), written to a file of their own. */
function nodesWith(over: Record<string, string>): string {
  const list = JSON.parse(readFileSync(`${DIR}nodes.json`, 'utf8')) as {
    items: { metadata: { name: string }; status: { allocatable: Record<string, string> } }[];
  };
  const s1 = list.items.find((n) => n.metadata.name === 'gpu-s1')!;
  Object.assign(s1.status.allocatable, over);
  const file = path.join(work, `nodes-${Object.values(over).join('-')}.json`);
  writeFileSync(file, JSON.stringify(list));
  return file;
}

async function plan(repo: string, pods: string, now: string, nodes = `${DIR}nodes.json`): Promise<Decision> {
  const run = await runMain(
    'plan',
    '--repo',
    `${DIR}${repo}`,
    '--nodes',
    nodes,
    '--pods',
    `${DIR}${pods}`,
    '--metrics',
    `${DIR}util.prom`,
    '--benchmarks',
    `${DIR}bench.yaml`,
    '--now',
    now,
    '--output',
    'json',
  );
  expect(run.code).toBe(0);
  const out = JSON.parse(run.out) as { scaling: Decision[] };
  return out.scaling.find((d) => d.algorithm === 'resnet50-infer')!;
}

describe('F06: GPUs free but cpu full', () => {
  it('pass 1: no scale-up onto gpu-s1; gpu-u1 moves in and the replica goes there', async () => {
    const d = await plan('repo', 'pods.json', '2026-03-01T10:00:00Z');
    expect(d).toMatchObject({
      action: 'relabel',
      reason: 'RelabelUnusedNode',
      nodes: ['gpu-u1'],
      replicas: { from: 2, to: 3 },
    });
    expect(d.message).toContain(
      'pool short-task has no room for a pod of 1 GPU(s) (each 1 GPU, 4 cpu, 16Gi; gpu-s1: Insufficient cpu), moving unused node(s) gpu-u1',
    );
  });

  it('pass 2: the third replica Pending on Insufficient cpu is no reason to add one to gpu-s1; gpu-u1 moves in', async () => {
    const d = await plan('repo-pass2', 'pods-pass2.json', '2026-03-01T10:10:00Z');
    expect(d.action).not.toBe('scale-up');
    expect(d).toMatchObject({ action: 'relabel', nodes: ['gpu-u1'], replicas: { from: 3 } });
    expect(d.message).toContain('gpu-s1: Insufficient cpu');
  });

  it.each<[string, Record<string, string>]>([
    ['cpu for exactly one more replica (12 cpu)', { cpu: '12' }],
    ['cpu in millicores for exactly one more (12000m)', { cpu: '12000m' }],
  ])('the neighbour, %s: the scale-up goes onto gpu-s1, nothing moves', async (_name, over) => {
    const d = await plan('repo', 'pods.json', '2026-03-01T10:00:00Z', nodesWith(over));
    expect(d).toMatchObject({ action: 'scale-up', replicas: { from: 2, to: 3 }, nodes: [] });
  });

  it.each<[string, Record<string, string>, string]>([
    ['one millicore short (11999m)', { cpu: '11999m' }, 'Insufficient cpu'],
    ['memory short (47Gi left 15Gi)', { cpu: '32', memory: '47Gi' }, 'Insufficient memory'],
    ['no pod slot left (2 pods)', { cpu: '32', pods: '2' }, 'Too many pods'],
  ])('%s: gpu-u1 moves in instead', async (_name, over, why) => {
    const d = await plan('repo', 'pods.json', '2026-03-01T10:00:00Z', nodesWith(over));
    expect(d).toMatchObject({ action: 'relabel', nodes: ['gpu-u1'] });
    expect(d.message).toContain(`gpu-s1: ${why}`);
  });
});
