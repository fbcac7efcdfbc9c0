import type { StandbySet } from '../../src/definitions/types.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import type { PassResult } from '../../src/pass/reconcile.js';
import {
  algorithmFile,
  gpuNode,
  startHarness,
  type Harness,
  type HarnessOptions,
} from './reconcile-harness.js';

/** A Policy declaring the standby set `llm` (bert and llama, 1 GPU, on short-task) for the sim-behaviour tests. */
export const STANDBY_POLICY = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: standby}',
  'spec:',
  '  scaling:',
  '    headroomFactor: 1',
  '    utilization: {min: 30, max: 80}',
  '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
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

/** The set {@link STANDBY_POLICY} declares, as the policy parser gives it. */
export const STANDBY_SET: StandbySet = {
  name: 'llm',
  pool: 'short-task',
  namespace: 'algorithms',
  image: 'registry.example.com/ml/multi-model:2.1',
  algorithms: ['bert', 'llama'],
  gpus: 1,
  port: 8000,
  readinessPath: '/ready',
  wakePath: '/wake',
  claimSeconds: 5,
};

/**
 * The harness of the standby sim-behaviour tests: one 8-GPU short-task node, `bert` (1 GPU, pinned
 * to short-task) and {@link STANDBY_POLICY}, a 30 s cold start; a first pass (no reading yet), its
 * pools and bert's placement merged and synced, bert's pod Running after 60 s, then the node's
 * dcgm-exporter page as the utilisation source.
 * @returns the harness and the first pass's result
 */
export async function startStandbyHarness(
  extra: Partial<HarnessOptions> = {},
): Promise<{ h: Harness; first: PassResult }> {
  const h = await startHarness({
    nodes: [gpuNode('gpu-s1', 8, 'short-task')],
    files: {
      'README.md': '# gitops\n',
      'algorithms/bert.yaml': algorithmFile('bert', { pool: 'short-task' }),
      'policies/standby.yaml': STANDBY_POLICY,
    },
    behaviour: { startupSeconds: 30 },
    ...extra,
  });
  const first = await h.pass();
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
  return { h, first };
}
