import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StandbySet } from '../../src/definitions/types.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import type { PassResult } from '../../src/pass/reconcile.js';
import type { KubeObject } from '../../src/sim/index.js';
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

/** bert's Service in `algorithms` (port 8000, selecting bert's pods): where a claimed standby serves. */
export const BERT_SERVICE: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'bert', namespace: 'algorithms' },
  spec: {
    selector: { 'app.kubernetes.io/name': 'bert', 'gpuops.dev/algorithm': 'bert' },
    ports: [{ name: 'http', port: 8000, targetPort: 8000, protocol: 'TCP' }],
  },
};

/**
 * Brings `h` (from {@link startStandbyHarness}) to the set's standbys running and bert holding at 1:
 * a pass at 100 % on bert's one 1-GPU pod sizes the set at ceil(1 × √1 / 0.8) = 2 standbys, its
 * branch merged and synced, 60 s for their 30 s cold start, a pass back within the band (50 %),
 * and {@link BERT_SERVICE} created. The caller settles the simulator after.
 */
export async function runStandbys(h: Harness): Promise<void> {
  h.load.setLoad('bert', 100);
  await h.pass();
  h.merge('gpuops/prod/standby/llm');
  await h.sync();
  h.sim.clock.advance(60);
  await h.settle();
  h.load.setLoad('bert', 50);
  await h.pass();
  h.sim.store.create('services', BERT_SERVICE);
}

/** Whether a pod's `Ready` condition is `True`. */
export const isReady = (p: KubeObject): boolean =>
  (p.status?.conditions as { type: string; status: string }[] | undefined)?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) ?? false;

/** The serving runtime's wake endpoint of every standby pod, on a free port of 127.0.0.1. */
export interface WakeRuntime {
  port: number;
  close(): Promise<void>;
}

/** Starts a {@link WakeRuntime} that hands each call (method, path, body) to `onWake` and answers 200 `{}`. */
export async function startWakeRuntime(
  onWake: (method: string, url: string, body: string) => void,
): Promise<WakeRuntime> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      onWake(req.method ?? '', req.url ?? '', body);
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
