/**
 * One scale-up story run twice on the same input: on the real control plane (kube-scheduler,
 * the ReplicaSet controller, KWOK's nodes, Flux) and on the simulator (`gpuops sim`, its
 * scheduler's filters). A test of a scheduler rule compares gpuops's decision and where the new
 * replica lands on both, so a difference between the simulator and the real components shows as
 * a failed comparison, not as a guess.
 *
 * The story: the pools pull request merged, the algorithm `serve` placed (one replica), its load
 * set to 100 % against a max of 80 %, passes until gpuops decides a scale-up (or a move of a node
 * in), that pull request merged and applied, and the nodes of the running replicas read.
 */
import type { PassResult } from '../../src/pass/reconcile.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import type { KubeObject } from '../../src/cluster/object.js';
import type { ScalingDecision } from '../../src/scaling/types.js';
import { startHarness } from '../support/reconcile-harness.js';
import { kwokNode, until, type RealHarness, type TestNode } from './harness.js';

/** What both runs do: the pass, the person's merge, the applier, the load and the pods. */
interface Driver {
  pass(): Promise<PassResult>;
  merge(branch: string): void;
  sync(): Promise<unknown>;
  setLoad(percent: number): void;
  /** The nodes of serve's Running replicas, sorted. */
  running(): Promise<string[]>;
}

/** The decision (its comparable fields) and the replicas' nodes before and after it was applied. */
export interface ScaleUpRun {
  first: string[];
  decision: Pick<ScalingDecision, 'action' | 'reason' | 'nodes' | 'replicas' | 'message'>;
  placed: string[];
}

/** The first node of every story's fleet: the real harness makes it the test node (1 GPU). */
export const TEST_NODE: TestNode = { name: 'gpu-a', gpus: 1 };

/**
 * The GitOps repository of a story: `serve` (its Algorithm file) and a Policy that scales up at
 * once (no cooldown, no stabilisation window, a 5 s utilisation window) and never down within it.
 */
export function twinFiles(serve: string): Record<string, string> {
  return {
    'README.md': '# gitops\n',
    'algorithms/serve.yaml': serve,
    'policies/test.yaml': [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Policy',
      'metadata: {name: test}',
      'spec:',
      '  scaling:',
      '    windowSeconds: 5',
      '    staleSampleSeconds: 120',
      '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
      '    scaleDown: {cooldownSeconds: 3600, stabilizationWindowSeconds: 3600}',
      '',
    ].join('\n'),
  };
}

/**
 * What two runs of a story must share: the decision but its message (each side words the
 * scheduler's reasons its own way) and the replicas' nodes before and after.
 */
export function comparable(run: ScaleUpRun): Omit<ScaleUpRun['decision'], 'message'> & {
  first: string[];
  placed: string[];
} {
  const { message: _m, ...decision } = run.decision;
  return { ...decision, first: run.first, placed: run.placed };
}

const scaling = (r: PassResult) => r.plan.scaling.find((s) => s.algorithm === 'serve');

async function story(d: Driver, replicasAfter: number): Promise<ScaleUpRun> {
  await d.pass();
  d.merge('gpuops/prod/pools');
  await d.sync();
  await until('serve is placed', async () =>
    (await d.pass()).writeBack.some((w) => w.branch === 'gpuops/prod/placement/serve'),
  );
  d.merge('gpuops/prod/placement/serve');
  await d.sync();
  const first = await until('one replica runs', async () => {
    const nodes = await d.running();
    return nodes.length === 1 && nodes;
  });
  d.setLoad(100);
  let last = '';
  const s = await until('a scale-up is decided', async () => {
    const got = scaling(await d.pass());
    last = `${got?.action} ${got?.reason}: ${got?.message}`;
    return (got?.action === 'scale-up' || got?.action === 'relabel') && got;
  }).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; last decision: ${last}`);
  });
  d.merge('gpuops/prod/scale/serve');
  await d.sync();
  const placed = await until(`${replicasAfter} replicas run`, async () => {
    const nodes = await d.running();
    return nodes.length === replicasAfter && nodes;
  });
  const { action, reason, nodes, replicas, message } = s;
  return { first, decision: { action, reason, nodes, replicas, message }, placed };
}

const nodesOfRunning = (pods: KubeObject[]) =>
  pods
    .filter((p) => !p.metadata.deletionTimestamp && (p.status as { phase?: string })?.phase === 'Running')
    .map((p) => String((p.spec as { nodeName?: string }).nodeName))
    .sort();

/** The story on the real control plane (nodes already added, `files` in its repo). */
export function realStory(h: RealHarness, replicasAfter = 2): Promise<ScaleUpRun> {
  return story(
    {
      pass: () => h.pass(),
      merge: (b) => void h.merge(b),
      sync: () => h.sync(),
      setLoad: (p) => h.local.load.setLoad('serve', p),
      running: async () => nodesOfRunning(await h.pods('algorithms', 'gpuops.dev/algorithm=serve')),
    },
    replicasAfter,
  );
}

/**
 * The same story on the simulator, from the same files, the same Node objects (Ready) and the
 * same foreign pods (bound by `spec.nodeName`); utilisation read from its dcgm-exporter pages.
 */
export async function simStory(
  files: Record<string, string>,
  nodes: TestNode[],
  pods: KubeObject[] = [],
  replicasAfter = 2,
): Promise<ScaleUpRun> {
  const objects = nodes.map((n) => {
    const o = kwokNode(n);
    return { ...o, status: { ...(o.status as object), conditions: [{ type: 'Ready', status: 'True' }] } };
  });
  const h = await startHarness({ files, nodes: objects, pods });
  try {
    h.setMetrics(
      new DcgmScrapeSource({
        targets: nodes.map((n) => ({ url: `${h.sim.url}/dcgm/${n.name}/metrics`, node: n.name })),
        now: () => h.sim.clock.now(),
      }),
    );
    return await story(
      {
        pass: () => h.pass(),
        merge: (b) => void h.merge(b),
        sync: () => h.sync(),
        setLoad: (p) => h.load.setLoad('serve', p),
        running: async () => {
          await h.settle();
          return nodesOfRunning(h.sim.store.list('pods', 'algorithms') as KubeObject[]);
        },
      },
      replicasAfter,
    );
  } finally {
    await h.close();
  }
}
