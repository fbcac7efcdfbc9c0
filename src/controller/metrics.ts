import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
