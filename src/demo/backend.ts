/**
 * Where the demo scenario runs: the simulated cluster (the default, `simBackend`) or the real
 * control plane (`real-backend.ts`). The scenario reads the cluster through `view()` after each
 * cycle, lets time pass with `advance()`, applies merged Git with `sync()`, and sets the offered
 * load on `load`; everything else (the passes, the repo, the database) is the same on both.
 */
import type { KubeObject, LoadModel } from '../sim/index.js';
import { applyGitOpsFolder } from '../gitops-apply/index.js';
import type { ApplySummary } from '../gitops-apply/index.js';
import { sleep } from '../retry/index.js';
import type { DemoCluster } from './cluster.js';

/** The cluster's objects the scenario reads, as the API server returns them. */
export interface DemoView {
  nodes: KubeObject[];
  pods: KubeObject[];
  deployments: KubeObject[];
  services: KubeObject[];
}

/** What {@link DemoBackend.sync} did: a line to print and the problems to show. */
export interface DemoSync {
  line: string;
  problems: string[];
}

/** A cluster the demo runs on. */
export interface DemoBackend {
  load: LoadModel;
  /** The setting-up line: what the cluster is. */
  describe(): string;
  /** The scenario's time (simulated seconds advance it). */
  now(): Date;
  /** Lets `seconds` of simulated time pass. */
  advance(seconds: number): Promise<void>;
  view(): Promise<DemoView>;
  /** Applies `clusters/<cluster>/` at main (`folder`: its checkout) as the GitOps agent does. */
  sync(folder: string): Promise<DemoSync>;
  /** Lets the controllers act on what the last sync created. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Counts of what a sync changed, e.g. `2 Nodes changed, 1 pruned (5 object(s) in sync)`. */
export function describeSync(s: ApplySummary): string {
  const count = (pred: (a: ApplySummary['applied'][number]) => boolean) => s.applied.filter(pred).length;
  const parts: string[] = [];
  for (const kind of ['Node', 'Deployment', 'Service', 'HorizontalPodAutoscaler']) {
    const changed = count((a) => a.kind === kind && a.result !== 'unchanged');
    if (changed > 0) parts.push(`${changed} ${kind}${changed === 1 ? '' : 's'} changed`);
  }
  if (s.pruned.length > 0) parts.push(`${s.pruned.length} pruned`);
  if (parts.length === 0) parts.push('nothing to change');
  return `${parts.join(', ')} (${s.applied.length} object(s) in sync)`;
}

/** The simulated cluster: its clock moves on `advance`, an Argo CD-like applier syncs. */
export function simBackend(demo: DemoCluster): DemoBackend {
  const { sim } = demo;
  return {
    load: demo.load,
    describe: () =>
      `a simulated cluster of ${sim.store.list('nodes').length} nodes (${demo.dcgmTargets.length} with GPUs) at ${sim.url}, whose clock runs at up to ${sim.clock.speed} simulated seconds per real second`,
    now: () => sim.clock.now(),
    advance: (seconds) => {
      sim.clock.advance(seconds);
      return Promise.resolve();
    },
    view: () =>
      Promise.resolve({
        nodes: sim.store.list('nodes'),
        pods: sim.store.list('pods'),
        deployments: sim.store.list('deployments'),
        services: sim.store.list('services'),
      }),
    sync: async (folder) => {
      const s = await applyGitOpsFolder(demo.kubeConfig, folder, { fieldManager: 'argocd-controller' });
      return {
        line: `Argo CD-like sync of ${folder.split('/').slice(-2).join('/')}/: ${describeSync(s)}`,
        problems: s.errors.map((e) => `sync: ${e.reason}: ${e.message}`),
      };
    },
    settle: () => sleep(60),
    close: () => demo.close(),
  };
}
