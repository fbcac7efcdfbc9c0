/**
 * A model cache fill that fails, on the simulated cluster through Git: the pass writes `bert`'s
 * fill Job (no Deployment), a person merges it, the applier applies it, its pod fails each time
 * (`--sim-fail`) until the simulated Job controller marks the Job `Failed` (BackoffLimitExceeded).
 * The passes after that write no Deployment, and the first of them warns once, naming the
 * namespace, algorithm, Job and the Job's reason; later passes do not warn again, nor does a
 * restarted process (a fresh memory over the same database: it reads what the fleet status
 * records). The stored fleet status (`gpuops status`) shows the algorithm held by the failed fill.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/sim/index.js';
import { statusStoreOf } from '../../src/store/status-store.js';
import { createReconcilerMemory } from '../../src/plan/memory.js';
import { reconcileOnce } from '../../src/pass/reconcile.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const DIR = 'clusters/prod/algorithms/bert';
const bert =
  algorithmFile('bert', { pool: 'short-task' }) +
  [
    '  modelCache:',
    '    claimName: bert-models',
    '    mountPath: /models',
    '    fill: {image: registry.example.com/ml/fetch:1.0, args: [bert-base, --sim-duration=5, --sim-fail]}',
    '',
  ].join('\n');

const fillJobs = (h: Harness): KubeObject[] =>
  h.sim.store
    .list('jobs', 'algorithms')
    .filter((j) => j.metadata.labels?.['gpuops.dev/model-cache-fill'] !== undefined);
const conditions = (j: KubeObject) =>
  (j.status?.conditions as { type: string; status: string; reason?: string }[] | undefined) ?? [];
const warnings = (h: Harness) => h.logs.filter((l) => String(l.msg).startsWith('model cache fill failed'));

async function passAndSync(h: Harness): Promise<void> {
  await h.pass();
  for (const b of ['gpuops/prod/placement/bert', 'gpuops/prod/pools'])
    if (h.branches().includes(b) && h.ref(b) !== h.ref('main')) h.merge(b);
  expect((await h.sync()).errors).toEqual([]);
  await h.settle();
}

let h: Harness;
let job: KubeObject;
let warnedAfterFirst: Record<string, unknown>[];
let warnedAfterThird: Record<string, unknown>[];
let warnedAfterRestart: Record<string, unknown>[];
beforeAll(async () => {
  h = await startHarness({
    nodes: [gpuNode('gpu-t', 1, 'test'), gpuNode('gpu-s1', 2, 'short-task')],
    files: { 'README.md': '# gitops\n', 'algorithms/bert.yaml': bert },
    behaviour: { startupSeconds: 5 },
    speed: 1e-9,
  });
  await passAndSync(h);
  // The pod fails, is retried with the Job controller's back-off, until backoffLimit.
  for (let i = 0; i < 60 && !fillJobs(h).some((j) => conditions(j).some((c) => c.type === 'Failed')); i++) {
    h.sim.clock.advance(30);
    await h.settle();
  }
  job = fillJobs(h)[0]!;
  await passAndSync(h);
  warnedAfterFirst = warnings(h);
  await passAndSync(h);
  await passAndSync(h);
  warnedAfterThird = warnings(h);
  // A restart: the same database and cluster, a process's memory from scratch.
  await reconcileOnce({ ...h.deps, memory: createReconcilerMemory() });
  warnedAfterRestart = warnings(h);
}, 300_000);
afterAll(async () => {
  await h?.close();
});

describe('a failed model cache fill on the simulated cluster', () => {
  it('the fleet status (gpuops status) shows bert held by the failed fill, with the reason', async () => {
    const fleet = await statusStoreOf(h.store)!.fleetStatus('prod');
    expect(fleet?.algorithms.find((a) => a.name === 'bert')?.held).toEqual({
      reason: 'ModelCacheFillFailed',
      message: expect.stringContaining(
        `fill Job algorithms/${job.metadata.name} failed (BackoffLimitExceeded`,
      ),
    });
  });

  it('the Job controller marks the fill Job Failed (BackoffLimitExceeded)', () => {
    expect(conditions(job)).toContainEqual(
      expect.objectContaining({ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }),
    );
  });

  it('no Deployment is written to Git or applied', () => {
    expect(h.file('main', `${DIR}/deployment.yaml`)).toBeNull();
    expect(h.file('main', `${DIR}/model-cache-fill.yaml`)).not.toBeNull();
    expect(h.sim.store.get('deployments', 'algorithms', 'bert') ?? null).toBeNull();
  });

  it('the pass warns once with the namespace, algorithm, Job and reason; later passes do not repeat it', () => {
    expect(warnedAfterFirst).toEqual([
      expect.objectContaining({
        level: 40,
        namespace: 'algorithms',
        algorithm: 'bert',
        job: `algorithms/${job.metadata.name}`,
        reason: 'BackoffLimitExceeded',
      }),
    ]);
    expect(String(warnedAfterFirst[0]!.msg)).toContain('BackoffLimitExceeded');
    expect(warnedAfterThird).toHaveLength(1);
  });

  it('a restarted process does not warn again: the fleet status records the failure as it is', () => {
    expect(warnedAfterRestart).toHaveLength(1);
  });
});
