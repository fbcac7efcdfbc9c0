/**
 * The duty cycle against the service's own load, on one trace (pure): the HPA and gpuops, each
 * scaling on the GPU duty cycle and on the trace's service series (requests per second per
 * replica for the bundled trace's `qps.csv`), through the model (`model-engine.ts`) under the
 * same loop, limits and policy, and measured by the same figures: the trace's GPU need
 * (`figures.ts`), whatever signal decided.
 *
 * The service signal's band comes from the duty-cycle band: a replica at `min`..`max` percent
 * serves `min × r`..`max × r` of the service's unit, where `r` is the service's load per
 * GPU-percent over the first half of the trace (Σ service ÷ Σ offered GPU-percent, on the
 * instants with a reading), and the HPA's target is its duty-cycle target × `r`. The second half
 * is not looked at for it, as the headroom factor is chosen (`frontier.ts`). Both gpuops rows size
 * by load (`scaling.sizing: load`, the target the middle of the band): headroom sizing adds
 * β × √load, which depends on the unit the load is counted in, so the two signals would not be
 * compared under one rule.
 */
import { mergePolicy } from '../definitions/index.js';
import type { Policy } from '../definitions/index.js';
import { computeFigures, type AllocationPoint, type EngineFigures } from './figures.js';
import { runModel, type ModelEngine, type ModelSettings } from './model-engine.js';
import { offeredLoad, type ServiceSeries, type Trace } from './trace.js';

/** One engine on one signal. */
export interface SignalRun {
  engine: 'hpa' | 'gpuops';
  signal: 'duty cycle' | 'service';
  figures: EngineFigures;
  /** Its allocation over time (`runModel`). */
  points: AllocationPoint[];
}

/** What {@link compareSignals} finds. */
export interface SignalComparison {
  series: ServiceSeries;
  /** The service's load per GPU-percent on the first half (its unit per percent). */
  perGpuPercent: number;
  /** The service signal's band per replica and the HPA's target on it (the series' unit). */
  band: { min: number; max: number; hpaTarget: number };
  /** Instants without a service reading (engines on it hold there), of `instants`. */
  noReading: number;
  instants: number;
  /** HPA and gpuops, duty cycle then service, in that order. */
  runs: SignalRun[];
}

/** What {@link compareSignals} runs under. */
export interface CompareOptions {
  /** The replay's loop and limits (band in percent). */
  settings: ModelSettings;
  /** The policy gpuops runs under; its sizing is set to `load` here (see the module comment). */
  policy: Policy;
  /** The HPA's target on the duty cycle (percent). */
  hpaTarget: number;
  /** Static allocation's GPU-hours, for the saving. */
  staticGpuHours: number;
}

/**
 * The service's load per GPU-percent over the first half of `trace` (see the module comment).
 * @throws Error naming the series' file when the first half holds no service load or no GPU load
 */
export function servicePerGpuPercent(trace: Trace): number {
  const xs = trace.instants;
  const half = xs[0]!.t + (xs[xs.length - 1]!.t - xs[0]!.t) / 2;
  let service = 0;
  let gpu = 0;
  for (const x of xs) {
    if (x.t > half || x.service === undefined) continue;
    service += x.service;
    gpu += offeredLoad(x);
  }
  if (!(service > 0 && gpu > 0))
    throw new Error(
      `${trace.service?.source ?? trace.source}: no ${service > 0 ? 'GPU' : 'service'} load in the first half of the trace, where the service band is sized (Σ service ${service}, Σ GPU-percent ${gpu})`,
    );
  return service / gpu;
}

/**
 * The HPA and gpuops on the duty cycle and on `trace`'s service series (see the module comment).
 * @throws Error when the trace has no service series, or as {@link servicePerGpuPercent}
 */
export function compareSignals(trace: Trace, o: CompareOptions): SignalComparison {
  const series = trace.service;
  if (series === undefined) throw new Error(`${trace.source}: no service series to compare with`);
  const r = servicePerGpuPercent(trace);
  const s = o.settings;
  const band = { min: s.min * r, max: s.max * r, hpaTarget: o.hpaTarget * r };
  const onService: ModelSettings = {
    ...s,
    signal: { name: series.name, unit: series.unit, min: band.min, max: band.max },
  };
  const policy = mergePolicy(o.policy, { spec: { scaling: { sizing: 'load', targetUtilization: 0 } } });
  const run = (engine: SignalRun['engine'], signal: SignalRun['signal']): SignalRun => {
    const m: ModelEngine =
      engine === 'hpa'
        ? { kind: 'hpa', target: signal === 'service' ? band.hpaTarget : o.hpaTarget }
        : { kind: 'gpuops', policy };
    const points = runModel(trace, m, signal === 'service' ? onService : s);
    const figures = computeFigures(trace, points, {
      engine: `${engine} on ${signal === 'service' ? series.name : 'duty cycle'}`,
      max: s.max,
      flapWindowSeconds: 300,
      staticGpuHours: o.staticGpuHours,
    });
    return { engine, signal, figures, points };
  };
  return {
    series,
    perGpuPercent: r,
    band,
    noReading: trace.instants.filter((x) => x.service === undefined).length,
    instants: trace.instants.length,
    runs: [
      run('hpa', 'duty cycle'),
      run('hpa', 'service'),
      run('gpuops', 'duty cycle'),
      run('gpuops', 'service'),
    ],
  };
}

/** A number with 3 significant digits (the service band is small: 0.066 requests/s). */
const sig3 = (x: number) => (x === 0 ? '0' : x.toPrecision(3));

/**
 * The comparison for the terminal: how the band was derived, then one line per engine with each
 * figure as `duty cycle / service` side by side.
 */
export function formatSignals(
  c: SignalComparison,
  s: { min: number; max: number; hpaTarget: number },
): string {
  const u = c.series.unit;
  let out = `signals: the duty cycle / ${c.series.name} (${u} per replica, ${c.series.source}), model, same loop and limits; gpuops sizes by load on both\n`;
  out += `  ${c.series.name} band ${sig3(c.band.min)}–${sig3(c.band.max)} ${u} per replica, HPA target ${sig3(c.band.hpaTarget)}: the duty-cycle band ${s.min}–${s.max} % and target ${s.hpaTarget} % × ${sig3(c.perGpuPercent)} ${u} per GPU-percent (first half); ${c.noReading} of ${c.instants} instants without a reading (held)\n`;
  const cols = ['utilisation %', 'GPU-hours', 'unserved %', 'above max %', 'changes', 'flaps'];
  out += `  ${'engine'.padEnd(8)}${cols.map((h) => h.padStart(17)).join('')}\n`;
  for (const engine of ['hpa', 'gpuops'] as const) {
    const [d, v] = (['duty cycle', 'service'] as const).map(
      (signal) => c.runs.find((x) => x.engine === engine && x.signal === signal)!.figures,
    );
    const col = (f: (x: EngineFigures) => number, digits: number) =>
      `${f(d!).toFixed(digits)} / ${f(v!).toFixed(digits)}`.padStart(17);
    out += `  ${engine.padEnd(8)}${col((x) => x.utilizationPercent, 1)}${col((x) => x.allocatedGpuHours, 1)}${col((x) => x.unservedPercent, 2)}${col((x) => x.aboveMaxPercent, 2)}${col((x) => x.replicaChanges, 0)}${col((x) => x.flaps, 0)}\n`;
  }
  return `${out}\n`;
}
