/**
 * The demo's four steps on the real control plane (`gpuops demo --real`'s scenario): the pools
 * pull request merged and applied by Flux; benchmark Jobs run by the real Job controller on a KWOK
 * test node, their run times reported by their containers; placement; scale-up and scale-down
 * carried out by the real Deployment controller and scheduler; an unused node moved in and
 * returned. The decisions are the ones the simulator's demo makes (test/e2e/demo.test.ts) but for
 * two differences of the real components (docs/simulated-cluster.md): the test node, and which moved
 * node the scale-down empties.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { realDemo, scaledExamples } from '../../src/demo/real-backend.js';
import { EXAMPLES_DIR, runDemo, type DemoResult } from '../../src/demo/scenario.js';
import { describeReal } from './harness.js';

const SPEED = 30;
const dirs: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};
let result: DemoResult;
const lines: string[] = [];

describeReal('gpuops demo --real', () => {
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

  it('sorts the fleet as on the simulator, but for the gated Pending pod kube-scheduler leaves Pending', () => {
    const pool = new Map(result.nodes.map((n) => [n.name, n.pool]));
    // docs/simulated-cluster.md: the simulator binds the gated pod to gpu-a100-01, which makes
    // gpu-a100-02 its test node; here gpu-a100-01 is free and becomes the A100 test node, and
    // gpu-a100-02, unused, is the node moved into long-task for bert-train's first replica.
    expect(result.testNode).toBe('gpu-a100-01');
    expect(result.movedNodes).toContainEqual({
      node: 'gpu-a100-02',
      pool: 'long-task',
      algorithm: 'bert-train',
    });
    expect(pool.get('gpu-a100-02')).toBe('long-task');
    for (const trap of [
      'ip-10-0-1-11.ec2.internal',
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

  it('scales up onto a moved-in node and back down; the node the scale-down emptied returns to unused', () => {
    const shortTask = result.movedNodes.filter((m) => m.algorithm === 'resnet50-infer').map((m) => m.node);
    expect(shortTask).toContain('gpu-t4-01');
    // The ReplicaSet controller picks the pods a scale-down deletes ("doubled up" first), so
    // either moved node may keep the last replica: the other one is returned, and only it.
    const resnet = result.algorithms.find((a) => a.name === 'resnet50-infer')!;
    expect(resnet).toMatchObject({ replicasInGit: 1, readyPods: 1 });
    expect(resnet.podNodes).toHaveLength(1);
    const kept = resnet.podNodes[0]!;
    expect(shortTask).toContain(kept);
    expect(result.returnedNodes).toEqual(shortTask.filter((n) => n !== kept));
    const pool = new Map(result.nodes.map((n) => [n.name, n.pool]));
    expect(pool.get(kept)).toBe('short-task');
    expect(pool.get(result.returnedNodes[0]!)).toBe('unused');
    expect(result.deployments.find((d) => d.name === 'resnet50-infer')).toMatchObject({
      replicas: 1,
      pool: 'short-task',
    });
    expect(lines.some((l) => /Flux applied main@sha1:/.test(l))).toBe(true);
    expect(result.lastPassWrites).toEqual([]);
  });
});
