/**
 * Issue 8: a full warm reconcile pass at fleet scale — 2,000 GPU nodes, ~20,000 pods, 1,000
 * algorithms — against the simulated cluster over HTTP, a GitOps repo that already holds the
 * merged pools and placement output, benchmarks stored in SQLite and one canned Prometheus
 * answer (see `reconcile-fleet.ts`); then the same at one tenth of the size, and a second pass
 * with nothing changed. The passes run in a forked process (`reconcile-pass.ts`), so peak RSS is
 * the controller's alone. `GPUOPS_BENCH_CPU_PROF=DIR` writes a CPU profile of that process.
 *
 * Targets (issue 8, on a 2-core machine): warm pass < 2 s, peak RSS < 400 MB, Kubernetes API
 * requests per pass that do not grow with the fleet beyond list pages, at most one commit per
 * changed subject, and nothing written by a pass with nothing changed.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PAGE_SIZE } from '../src/cluster/kube-client.js';
import { buildWorld, type World, type WorldSize } from './reconcile-fleet.js';
import type { PassReport, PeakReport, ServerCounts } from './reconcile-pass.js';
import type { Figure } from './run.js';

const FULL: WorldSize = { gpuNodes: 2000, algorithms: 1000 };
const TENTH: WorldSize = { gpuNodes: 200, algorithms: 100 };

interface Measured {
  world: World['counts'];
  passes: Record<PassReport['pass'], PassReport>;
  peakRssMb: number;
}

/** Builds the world, runs the pass process against it, and tears it down. */
async function measure(size: WorldSize): Promise<Measured> {
  const world = await buildWorld(size);
  try {
    const profDir = process.env.GPUOPS_BENCH_CPU_PROF;
    const child = fork(
      fileURLToPath(new URL('./reconcile-pass.ts', import.meta.url)),
      [JSON.stringify(world.connection)],
      {
        execArgv: ['--import', 'tsx', ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [])],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    const passes: Partial<Measured['passes']> = {};
    let peakRssMb = 0;
    await new Promise<void>((resolve, reject) => {
      child.on('message', (m: { ask: number } | PassReport | PeakReport) => {
        if ('ask' in m) {
          const r = world.sim.requests();
          const counts: ServerCounts = {
            kube: r.total,
            kubeByVerb: r.byVerb,
            prometheus: world.prometheusRequests(),
          };
          child.send({ id: m.ask, counts });
        } else if (m.pass === 'done') peakRssMb = m.peakRssMb;
        else passes[m.pass] = m;
      });
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`reconcile pass process exited with ${code}`)),
      );
    });
    if (!passes.first || !passes.warm || !passes.unchanged)
      throw new Error('reconcile pass process reported too few passes');
    return { world: world.counts, passes: passes as Measured['passes'], peakRssMb };
  } finally {
    await world.close();
  }
}

/** List pages a snapshot needs: Nodes, and live Pods (Succeeded/Failed filtered by the server). */
function listPages(nodes: number, pods: number): number {
  return Math.max(1, Math.ceil(nodes / DEFAULT_PAGE_SIZE)) + Math.max(1, Math.ceil(pods / DEFAULT_PAGE_SIZE));
}

export default async function bench(): Promise<Figure[]> {
  const full = await measure(FULL);
  const tenth = await measure(TENTH);
  const w = full.world;
  const at = `${w.gpuNodes} GPU nodes / ${w.pods} pods / ${w.algorithms} algorithms`;
  const warm = full.passes.warm;
  const same = full.passes.unchanged;
  process.stderr.write(`reconcile bench (${at}): ${JSON.stringify(full.passes)}\n`);
  process.stderr.write(`reconcile bench (tenth): ${JSON.stringify(tenth.passes)}\n`);

  // Requests beyond list pages (per-node or per-object calls) must be none at either size.
  const beyond = (m: Measured, p: PassReport) => p.kubeRequests - listPages(m.world.nodes, m.world.pods);
  const figures: Figure[] = [
    { name: `reconcile warm pass, ${at}: wall time`, value: warm.wallMs, unit: 'ms', target: 2000 },
    { name: 'reconcile warm pass: CPU time', value: warm.cpuMs, unit: 'ms' },
    { name: 'reconcile pass process: peak RSS', value: full.peakRssMb, unit: 'MB', target: 400 },
    {
      name: 'reconcile first pass in a fresh process (dry run)',
      value: full.passes.first.wallMs,
      unit: 'ms',
    },
    { name: 'reconcile warm pass: Kubernetes API requests', value: warm.kubeRequests, unit: 'requests' },
    {
      name: 'reconcile warm pass: API requests beyond list pages',
      value: beyond(full, warm),
      unit: 'requests',
      target: 1,
    },
    {
      name: 'reconcile warm pass: Prometheus requests',
      value: warm.prometheusRequests,
      unit: 'requests',
      target: 2,
    },
    { name: 'reconcile warm pass: changed subjects', value: warm.changedSubjects, unit: 'subjects' },
    { name: 'reconcile warm pass: git commits', value: warm.commits, unit: 'commits' },
    {
      name: 'reconcile warm pass: commits beyond one per changed subject',
      value: Math.max(0, warm.commits - warm.changedSubjects),
      unit: 'commits',
      target: 1,
    },
    { name: 'reconcile pass, nothing changed: wall time', value: same.wallMs, unit: 'ms', target: 2000 },
    { name: 'reconcile pass, nothing changed: git commits', value: same.commits, unit: 'commits', target: 1 },
    { name: 'reconcile pass, nothing changed: git pushes', value: same.pushes, unit: 'pushes', target: 1 },
    {
      name: 'reconcile pass, nothing changed: writing PR calls',
      value: same.prWrites,
      unit: 'calls',
      target: 1,
    },
    {
      name: `reconcile warm pass at one tenth (${tenth.world.gpuNodes} GPU nodes): wall time`,
      value: tenth.passes.warm.wallMs,
      unit: 'ms',
    },
    {
      name: 'reconcile warm pass at one tenth: Kubernetes API requests',
      value: tenth.passes.warm.kubeRequests,
      unit: 'requests',
    },
    {
      name: 'reconcile warm pass at one tenth: API requests beyond list pages',
      value: beyond(tenth, tenth.passes.warm),
      unit: 'requests',
      target: 1,
    },
    { name: 'reconcile pass process at one tenth: peak RSS', value: tenth.peakRssMb, unit: 'MB' },
    // Linear growth: 10× the fleet costs at most ~10× the time (fixed costs make it less).
    {
      name: 'reconcile warm pass growth, full / tenth (10× the fleet)',
      value: warm.wallMs / tenth.passes.warm.wallMs,
      unit: '×',
      target: 12,
    },
  ];
  return figures;
}
