/**
 * The whole text of a pull request as a reviewer reads it, one per kind (pools, placement, scale),
 * compared byte for byte with `expected-pr-body/`: every sentence, table header and figure is
 * pinned, so a changed word is a reviewed change. After an intended change, regenerate with
 * `UPDATE_GOLDEN=1 npx vitest run test/gitops/pr-body-golden.test.ts` and read the diff.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderPrBody, type PrBodyInput } from '../../src/change-sets/pr-body.js';
import { prTitle } from '../../src/change-sets/pr-title.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'expected-pr-body');
const update = process.env.UPDATE_GOLDEN === '1';

const CASES: Record<string, PrBodyInput> = {
  pools: {
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files: [
      { path: 'clusters/prod/nodes/gpu-a.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-b.yaml', change: 'update' },
      { path: 'clusters/prod/nodes/gpu-old.yaml', change: 'delete' },
    ],
    desiredHash: 'b'.repeat(64),
    pools: [
      {
        node: 'gpu-a',
        from: null,
        to: 'test',
        reason: 'TestPool',
        message: 'becomes test: 1 of 1 test nodes',
      },
      { node: 'gpu-b', from: 'long-task', to: 'unused', reason: 'ReturnedIdle', message: 'empty for 3600 s' },
      { node: 'gpu-c', from: 'short-task', to: 'short-task', reason: 'KeepPool', message: 'kept' },
      { node: 'gpu-mig', from: null, to: null, reason: 'MIGOnly', message: 'MIG | mixed strategy' },
    ],
  },
  placement: {
    cluster: 'prod',
    kind: 'placement',
    subject: 'llm-finetune',
    files: [{ path: 'clusters/prod/algorithms/llm-finetune/deployment.yaml', change: 'create' }],
    desiredHash: 'c'.repeat(64),
    placements: [
      {
        placement: {
          algorithm: 'llm-finetune',
          pool: 'long-task',
          runTimeSeconds: 1500.25,
          reason: 'AboveThreshold',
          message: 'median run time 1500.25 s > long-task threshold 600 s',
        },
        runs: [
          { run: 1, status: 'Succeeded', durationSeconds: 1490.5, node: 'gpu-a' },
          { run: 2, status: 'Failed', durationSeconds: null, node: 'gpu-a' },
          { run: 3, status: 'Succeeded', durationSeconds: 1510, node: null },
        ],
        longTaskThresholdSeconds: 600,
        asks: { minReplicas: 1, maxReplicas: 4, gpusPerPod: 2 },
      },
    ],
  },
  scale: {
    cluster: 'prod',
    kind: 'scale',
    subject: 'bert',
    files: [{ path: 'clusters/prod/algorithms/bert/deployment.yaml', change: 'update' }],
    desiredHash: 'a'.repeat(64),
    scaling: [
      {
        decision: {
          algorithm: 'bert',
          action: 'relabel',
          replicas: { from: 2, to: 3 },
          utilization: 91.25,
          nodes: ['gpu-t4-02'],
          reason: 'RelabelUnusedNode',
          message: 'above max | no free GPU',
        },
        pods: [
          {
            namespace: 'algorithms',
            pod: 'bert-b',
            utilization: 95,
            at: '2025-01-01T00:00:00Z',
            gpus: ['GPU-1'],
          },
          {
            namespace: 'algorithms',
            pod: 'bert-a',
            utilization: 87.5,
            at: '2025-01-01T00:00:05Z',
            gpus: ['GPU-2', 'GPU-3'],
            window: { max: 99, coveredSeconds: 240 },
          },
        ],
        min: 30,
        max: 80,
        minReplicas: 1,
        maxReplicas: 8,
      },
    ],
    pools: [
      { node: 'gpu-t4-02', from: 'unused', to: 'long-task', reason: 'MovedForScaleUp', message: 'for bert' },
    ],
  },
};

describe('PR title and body, byte for byte', () => {
  it.each(Object.keys(CASES))('%s', (name) => {
    const input = CASES[name]!;
    const text = `# ${prTitle(input)}\n\n${renderPrBody(input)}`;
    const file = path.join(dir, `${name}.md`);
    if (update) writeFileSync(file, text);
    expect(existsSync(file), `missing ${file}; run with UPDATE_GOLDEN=1`).toBe(true);
    expect(text).toBe(readFileSync(file, 'utf8'));
  });

  it('expected-pr-body/ holds exactly one file per case: a stale file fails too', () => {
    expect(readdirSync(dir).sort()).toEqual(
      Object.keys(CASES)
        .map((n) => `${n}.md`)
        .sort(),
    );
  });
});
