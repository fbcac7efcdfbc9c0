/**
 * The pass plans a policy's standby set into Git: against the simulated cluster over HTTP and a
 * real GitOps repo, `bert` (1 GPU, pinned to short-task) runs one pod at 100 %; the pass opens
 * `gpuops/prod/standby/llm` with the standby Deployment sized ceil(1 × √1 / 0.8) = 2 (before any
 * reading, none), and once a person merges it and Argo CD syncs, the simulated cluster runs two
 * Ready standbys.
 * A second pass at the same load proposes nothing more.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import type { PassResult } from '../../src/pass/reconcile.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const BRANCH = 'gpuops/prod/standby/llm';
const FILE = 'clusters/prod/standby/llm/deployment.yaml';

export const STANDBY_POLICY = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: standby}',
  'spec:',
  '  scaling:',
  '    headroomFactor: 1',
  '    utilization: {min: 30, max: 80}',
  '  standby:',
  '    - name: llm',
  '      pool: short-task',
  '      namespace: algorithms',
  '      image: registry.example.com/ml/multi-model:2.1',
  '      algorithms: [bert, llama]',
  '      gpus: 1',
  '      port: 8000',
  '      readinessPath: /ready',
  '      wakePath: /wake',
  '      claimSeconds: 5',
  '',
].join('\n');

let h: Harness;
let noData: PassResult;
let sized: PassResult;
beforeAll(async () => {
  h = await startHarness({
    nodes: [gpuNode('gpu-s1', 8, 'short-task')],
    files: {
      'README.md': '# gitops\n',
      'algorithms/bert.yaml': algorithmFile('bert', { pool: 'short-task' }),
      'policies/standby.yaml': STANDBY_POLICY,
    },
    behaviour: { startupSeconds: 30 },
  });
  // No reading yet: a set Git does not hold waits for one (no data is no size).
  noData = await h.pass();
  h.merge('gpuops/prod/pools');
  h.merge('gpuops/prod/placement/bert');
  await h.sync();
  h.sim.clock.advance(60);
  await h.settle();
  h.setMetrics(
    new DcgmScrapeSource({
      targets: [{ url: `${h.sim.url}/dcgm/gpu-s1/metrics`, node: 'gpu-s1' }],
      now: () => h.sim.clock.now(),
    }),
  );
  h.load.setLoad('bert', 100);
  sized = await h.pass();
}, 180_000);
afterAll(async () => {
  await h?.close();
});

describe('a pass plans the standby set into Git', () => {
  it('opens the standby pull request with the Deployment sized to the pool spare', async () => {
    expect(noData.writeBack.map((r) => r.branch)).not.toContain(BRANCH);
    expect(sized.writeBack.find((r) => r.branch === BRANCH)).toMatchObject({ action: 'created' });
    const d = parse(h.file(BRANCH, FILE)!);
    expect(d.metadata).toMatchObject({ name: 'gpuops-standby-llm', namespace: 'algorithms' });
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.template.spec.nodeSelector).toEqual({ 'gpuops.dev/pool': 'short-task' });
    expect(h.file('main', FILE)).toBeNull();
    const pr = (await h.store.pullRequests('prod')).find((r) => r.branch === BRANCH)!;
    expect(pr.title).toBe('gpuops(prod): keep 2 standby pods of set llm on short-task');
    expect(pr.body).toContain('ceil(1 × √1 / (1 × 80 %)) = 2 pods');
  });

  it('merged and synced, the simulated cluster runs two Ready standbys; the next pass proposes nothing', async () => {
    h.merge(BRANCH);
    await h.sync();
    h.sim.clock.advance(60);
    await h.settle();
    const standbys = h.sim.store
      .list('pods', 'algorithms')
      .filter((p) => p.metadata.labels?.['gpuops.dev/standby'] === 'llm');
    const ready = standbys.filter((p) =>
      (p.status?.conditions as { type: string; status: string }[] | undefined)?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ),
    );
    expect(ready).toHaveLength(2);
    const again = await h.pass();
    expect(again.writeBack.filter((r) => r.branch === BRANCH)).toEqual([]);
  });
});
