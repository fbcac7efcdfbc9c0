/**
 * The demo's four steps on the real control plane (`gpuops demo --real`'s scenario): the pools
 * pull request merged and applied by Flux; benchmark Jobs run by the real Job controller on a KWOK
 * test node, their run times reported by their containers; placement; scale-up and scale-down
 * carried out by the real Deployment controller and scheduler; an unused node moved in and
 * returned. The decisions are the ones the simulator's demo makes (test/e2e/demo.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realDemo, scaledExamples } from '../../src/demo/real-backend.js';
import { EXAMPLES_DIR, runDemo, type DemoResult } from '../../src/demo/scenario.js';

const SPEED = 30;
const dirs: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};
let result: DemoResult;
const lines: string[] = [];

// Not yet seen passing (its scaling step needs the utilisation path that patch-mode-flux.test.ts's
// skipped tests wait for); run it alone with `npx vitest run --project real-cluster -t 'demo --real'`
// after removing `.skip`.
describe.skip('gpuops demo --real', () => {
  beforeAll(async () => {
    const examples = temp('gpuops-real-examples-');
    scaledExamples(EXAMPLES_DIR, examples, SPEED);
    result = await runDemo({
      dir: path.join(temp('gpuops-real-demo-'), 'demo'),
      examples,
      real: realDemo(SPEED),
      onEvent: (e) => lines.push('text' in e ? e.text : `${e.kind}`),
    });
  });
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('sorts the fleet as on the simulator: one test node, every trap out', () => {
    const pool = new Map(result.nodes.map((n) => [n.name, n.pool]));
    expect(result.testNode).toBe('gpu-a100-02');
    for (const trap of [
      'ip-10-0-1-11.ec2.internal',
      'gpu-a100-01',
      'gpu-a100-03',
      'gpu-a100-04',
      'gpu-h100-02',
      'gpu-t4-02',
      'gpu-t4-04',
      'gpu-t4-05',
    ])
      expect(pool.get(trap), trap).toBeNull();
  });

  it('places by the run times the benchmark containers reported', () => {
    const byName = new Map(result.algorithms.map((a) => [a.name, a]));
    expect(byName.get('resnet50-infer')).toMatchObject({ pool: 'short-task', benchmarkSeconds: 45 });
    expect(byName.get('bert-train')).toMatchObject({ pool: 'long-task', benchmarkSeconds: 1500 });
  });

  it('scales up onto a moved-in node and back down; the node returns to unused', () => {
    expect(result.movedNodes.map((m) => m.node)).toContain('gpu-t4-01');
    expect(result.returnedNodes).toEqual(['gpu-t4-01']);
    const resnet = result.algorithms.find((a) => a.name === 'resnet50-infer')!;
    expect(resnet).toMatchObject({ replicasInGit: 1, readyPods: 1 });
    expect(result.deployments.find((d) => d.name === 'resnet50-infer')).toMatchObject({
      replicas: 1,
      pool: 'short-task',
    });
    expect(lines.some((l) => /Flux applied main@sha1:/.test(l))).toBe(true);
    expect(result.lastPassWrites).toEqual([]);
  });
});
