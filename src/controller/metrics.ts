import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { FleetStatusRecord, PullRequestCycle } from '../store/index.js';

/**
 * The controller's Prometheus metrics (prom-client), in their own registry so two controllers
 * in one process (tests) never share counters.
 */
export interface ControllerMetrics {
  registry: Registry;
  /** `gpuops_reconcile_passes_total{result="success"|"error"}` */
  passes: Counter<'result'>;
  /** `gpuops_reconcile_pass_duration_seconds` */
  passDuration: Histogram<string>;
  /** `gpuops_decisions_total{kind,reason}`: every pool, placement and scaling decision. */
  decisions: Counter<'kind' | 'reason'>;
  /** `gpuops_pull_requests_total{action}`: created, updated, unchanged, … */
  pullRequests: Counter<'action'>;
  /** `gpuops_errors_total{kind}`: spec, cluster, git, host, store, metrics. */
  errors: Counter<'kind'>;
  /** `gpuops_leader`: 1 while this replica holds the leader Lease, else 0. */
  leader: Gauge<string>;
}

/** Creates the metrics; `defaults` adds Node.js process metrics (memory, event loop). */
export function createControllerMetrics(defaults = true): ControllerMetrics {
  const registry = new Registry();
  if (defaults) collectDefaultMetrics({ register: registry, prefix: 'gpuops_' });
  return {
    registry,
    passes: new Counter({
      name: 'gpuops_reconcile_passes_total',
      help: 'Reconcile passes by result.',
      labelNames: ['result'],
      registers: [registry],
    }),
    passDuration: new Histogram({
      name: 'gpuops_reconcile_pass_duration_seconds',
      help: 'Wall time of one reconcile pass (seconds).',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    }),
    decisions: new Counter({
      name: 'gpuops_decisions_total',
      help: 'Decisions by kind (pools, placement, scaling) and machine reason.',
      labelNames: ['kind', 'reason'],
      registers: [registry],
    }),
    pullRequests: new Counter({
      name: 'gpuops_pull_requests_total',
      help: 'Pull request outcomes by action.',
      labelNames: ['action'],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'gpuops_errors_total',
      help: 'Errors by kind.',
      labelNames: ['kind'],
      registers: [registry],
    }),
    leader: new Gauge({
      name: 'gpuops_leader',
      help: '1 while this replica holds the leader Lease.',
      registers: [registry],
    }),
  };
}

/** What the fleet gauges read at scrape time (from the database, never the cluster). */
export interface FleetGaugeInput {
  fleet: FleetStatusRecord | null;
  /** Open pull request cycles (with their opening time). */
  openPullRequests: readonly Pick<PullRequestCycle, 'kind' | 'subject' | 'openedAt'>[];
}

/** Parses an ISO time to epoch seconds, or null. */
function epochSeconds(iso: string): number | null {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms / 1000;
}

/** One gauge of {@link registerFleetGauges}: `fill` sets its series from the scrape's input. */
interface FleetGauge {
  name: string;
  help: string;
  labelNames: string[];
  fill: (g: Gauge, input: FleetGaugeInput) => void;
}

const fleetGauge = <L extends string>(
  name: string,
  help: string,
  labelNames: L[],
  fill: (g: Gauge<L>, input: FleetGaugeInput) => void,
): FleetGauge => ({ name, help, labelNames, fill: fill as FleetGauge['fill'] });

/** The fleet's gauges, as the module comment lists them. */
const FLEET_GAUGES: readonly FleetGauge[] = [
  fleetGauge(
    'gpuops_last_pass_timestamp_seconds',
    'Time of the newest reconcile pass that wrote (epoch seconds).',
    [],
    (g, i) => {
      const t = i.fleet ? epochSeconds(i.fleet.at) : null;
      if (t !== null) g.set(t);
    },
  ),
  fleetGauge(
    'gpuops_pool_nodes',
    'Nodes per pool as the newest pass decided (pool="none": GPU nodes in no pool).',
    ['pool'],
    (g, i) => {
      if (!i.fleet) return;
      const counts: Record<string, number> = { test: 0, unused: 0, 'long-task': 0, 'short-task': 0, none: 0 };
      for (const p of i.fleet.pools) {
        if (p.to === null && p.reason === 'NoGPU') continue;
        counts[p.to ?? 'none'] = (counts[p.to ?? 'none'] ?? 0) + 1;
      }
      for (const [pool, n] of Object.entries(counts)) g.set({ pool }, n);
    },
  ),
  fleetGauge(
    'gpuops_algorithm_replicas',
    'Replicas of each algorithm after the newest scaling decision.',
    ['algorithm'],
    (g, i) => {
      for (const a of i.fleet?.algorithms ?? [])
        if (a.replicas !== null) g.set({ algorithm: a.name }, a.replicas);
    },
  ),
  fleetGauge(
    'gpuops_algorithm_utilization_percent',
    'GPU utilisation of each algorithm as the newest scaling decision read it (percent).',
    ['algorithm'],
    (g, i) => {
      for (const a of i.fleet?.algorithms ?? [])
        if (typeof a.utilization === 'number') g.set({ algorithm: a.name }, a.utilization);
    },
  ),
  fleetGauge(
    'gpuops_algorithm_utilization_available',
    '1 when the newest pass had usable GPU metrics for an algorithm with a Deployment, else 0.',
    ['algorithm'],
    (g, i) => {
      for (const a of i.fleet?.algorithms ?? [])
        if (a.replicas !== null) g.set({ algorithm: a.name }, typeof a.utilization === 'number' ? 1 : 0);
    },
  ),
  fleetGauge(
    'gpuops_algorithm_utilization_band_percent',
    'Scaling band of each algorithm (percent): below min scales down, above max scales up.',
    ['algorithm', 'bound'],
    (g, i) => {
      for (const a of i.fleet?.algorithms ?? []) {
        g.set({ algorithm: a.name, bound: 'min' }, a.utilizationMin);
        g.set({ algorithm: a.name, bound: 'max' }, a.utilizationMax);
      }
    },
  ),
  fleetGauge(
    'gpuops_pull_requests_open',
    'Open pull requests (or branches with the plain git provider) by kind.',
    ['kind'],
    (g, i) => {
      const counts: Record<string, number> = { pools: 0, placement: 0, scale: 0 };
      for (const p of i.openPullRequests) counts[p.kind] = (counts[p.kind] ?? 0) + 1;
      for (const [kind, n] of Object.entries(counts)) g.set({ kind }, n);
    },
  ),
  fleetGauge(
    'gpuops_pull_request_opened_timestamp_seconds',
    'When each open pull request was opened (epoch seconds).',
    ['kind', 'subject'],
    (g, i) => {
      for (const p of i.openPullRequests) {
        const t = epochSeconds(p.openedAt);
        if (t !== null) g.set({ kind: p.kind, subject: p.subject }, t);
      }
    },
  ),
  fleetGauge(
    'gpuops_git_write_refused',
    '1 for each Git branch the remote refuses permanently (a protected base branch in patch mode), by ref and reason.',
    ['ref', 'reason'],
    (g, i) => {
      for (const r of i.fleet?.writeRefusals ?? []) g.set({ ref: r.ref, reason: r.reason }, 1);
    },
  ),
  fleetGauge(
    'gpuops_algorithm_held',
    "1 for each algorithm whose Deployment the newest pass holds out of Git, by reason (ModelCacheFillFailed: its model cache fill Job failed; ModelCacheFillNotListed: the fill Jobs of its namespace could not be listed; ModelCacheFillUnlabelled: its fill Job in Git lacks gpuops's labels).",
    ['algorithm', 'reason'],
    (g, i) => {
      for (const a of i.fleet?.algorithms ?? [])
        if (a.held) g.set({ algorithm: a.name, reason: a.held.reason }, 1);
    },
  ),
  fleetGauge(
    'gpuops_benchmark_started_timestamp_seconds',
    'Benchmark pods running or pending at the newest pass, by creation time (epoch seconds).',
    ['algorithm', 'pod'],
    (g, i) => {
      for (const b of i.fleet?.benchmarks ?? []) {
        const t = epochSeconds(b.startedAt);
        if (t !== null) g.set({ algorithm: b.algorithm, pod: b.pod }, t);
      }
    },
  ),
];

/**
 * Registers gauges that describe the fleet as the newest pass left it, computed at scrape time
 * by `load` (called at most once per scrape: the gauges share one read). Names:
 * - `gpuops_last_pass_timestamp_seconds`: time of the newest pass that wrote (epoch seconds)
 * - `gpuops_pool_nodes{pool}`: nodes per pool as the pass decided (`none`: GPU nodes in no pool)
 * - `gpuops_algorithm_replicas{algorithm}`: replicas after the pass's scaling decision
 * - `gpuops_algorithm_utilization_percent{algorithm}`: utilisation the decision read (absent: no data)
 * - `gpuops_algorithm_utilization_available{algorithm}`: 1 when the pass had usable GPU metrics
 *   for an algorithm with a Deployment, 0 when it had none
 * - `gpuops_algorithm_utilization_band_percent{algorithm,bound="min"|"max"}`: the scaling band
 * - `gpuops_pull_requests_open{kind}`: open pull requests
 * - `gpuops_pull_request_opened_timestamp_seconds{kind,subject}`: when each open one was opened
 * - `gpuops_git_write_refused{ref,reason}`: 1 per branch the remote refuses permanently
 *   (`ProtectedBranch`, `PushDeclined`; see write-back/write-refusal.ts)
 * - `gpuops_benchmark_started_timestamp_seconds{algorithm,pod}`: benchmark pods running or pending
 * A failing `load` leaves the gauges empty for that scrape (the scrape itself still answers).
 */
export function registerFleetGauges(registry: Registry, load: () => Promise<FleetGaugeInput>): void {
  let pending: Promise<FleetGaugeInput | null> | null = null;
  const read = (): Promise<FleetGaugeInput | null> => {
    // One read per scrape: every gauge's collect runs in the same tick of registry.metrics().
    pending ??= load()
      .catch(() => null)
      .finally(() => setTimeout(() => (pending = null), 0));
    return pending;
  };
  for (const { name, help, labelNames, fill } of FLEET_GAUGES)
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        const input = await read();
        if (input) fill(this, input);
      },
    });
}
