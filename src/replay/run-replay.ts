/**
 * `gpuops replay`: a utilisation history through every engine, on the same trace — `static` and
 * `ideal` computed, `hpa`, `gpuops` patch mode and `gpuops` PR mode simulated (see
 * `sim-engine.ts`) — and the figures of each (see `figures.ts`).
 */
import path from 'node:path';
import {
  computeFigures,
  idealPoints,
  staticPodTime,
  staticPoints,
  type AllocationPoint,
  type EngineFigures,
  type ReplayEvent,
} from './figures.js';
import { runSimEngineInChild } from './engine-process.js';
import { runSimEngine, type SimEngine, type SimEngineResult } from './sim-engine.js';
import type { ReplaySettings } from './replay-settings.js';
import { offeredLoad, type Trace } from './trace.js';
import { loadDefaultPolicy } from '../definitions/index.js';
import { analyse, ONE_SERVICE_LIMITS, type ReplayAnalysis } from './analysis.js';
import { replayVerdict, type Verdict } from './verdict.js';
import { fleetNodeCount } from './fleet.js';
import { verdicts, type TargetVerdict } from './targets.js';
import { FAST_LOOP, flagsLoop, loopContext, runLoop, type LoopResult } from './loop-scenarios.js';
import { loopVerdicts } from './loop-text.js';
import { patchPolicy } from './replay-policy.js';
import { compareSignals, type SignalComparison } from './signal-compare.js';
import type { Policy } from '../definitions/index.js';
import type { ModelSettings } from './model-engine.js';
import { SLOT_PRIORITY, type AcquireSlot } from './slots.js';

/** Every engine, in the order the table lists them. */
export const ENGINES = ['static', 'hpa', 'gpuops-patch', 'gpuops-pr', 'ideal'] as const;
/** One engine the replay compares ({@link ENGINES}). */
export type Engine = (typeof ENGINES)[number];

/** One engine's outcome: figures, allocation over time, markers. */
export interface EngineRun {
  figures: EngineFigures;
  points: AllocationPoint[];
  events: ReplayEvent[];
  /** Simulated engines: reconcile passes made and CPU seconds used (process and its git processes). */
  cost?: { passes: number; cpuSeconds: number };
}

/** The whole replay. */
export interface ReplayResult {
  trace: { source: string; instants: number; pods: number; hours: number };
  settings: ReplaySettings;
  /** Offered load at each instant: seconds from the start, GPU-percent. */
  offered: { t: number; load: number }[];
  engines: EngineRun[];
  /** Frontiers, the first-half choice of β and the model at the engines' parameters (see `analysis.ts`). */
  analysis: ReplayAnalysis;
  /** Every figure with a target, judged (see `targets.ts`, `loop-text.ts`). */
  verdicts: TargetVerdict[];
  /** gpuops's modes against the HPA at its best target: the table and sentence read first (`verdict.ts`). */
  verdict: Verdict;
  /** The replay's own loop, the fast loop and the drawn start-ups' loop, each beside its causal bound. */
  loops: LoopResult[];
  /** With a service series beside the trace: the HPA and gpuops on it and on the duty cycle (`signal-compare.ts`). */
  signals?: SignalComparison;
  wallSeconds: number;
}

/** Options of {@link runReplay}. */
export interface RunReplayOptions {
  settings: ReplaySettings;
  /** Work folder (one sub-folder per simulated engine). */
  dir: string;
  engines?: readonly Engine[];
  /**
   * Run each simulated engine in its own process (every core works; `gpuops replay` does), or all
   * in this one (default; tests).
   */
  processes?: boolean;
  /**
   * Slots of the machine's cores (`slots.ts`): each simulated engine and the model wait for one
   * and hold it while they run; absent: all at once.
   */
  slots?: AcquireSlot;
  /** Called when an engine is done (for progress). */
  onEngine?: (run: EngineRun) => void;
  /** Called when the model (frontiers, loops, signals) is done, with the CPU seconds it took. */
  onModel?: (cpuSeconds: number) => void;
  /** Called while a simulated engine runs with the share of the trace it replayed (0..1; rate-limited by the caller). */
  onProgress?: (engine: Engine, fraction: number) => void;
}

/**
 * Runs the simulated engines at once (each on its own simulated cluster, repo and database) and
 * computes the figures of every engine. @throws Error when a simulated engine fails
 */
export async function runReplay(trace: Trace, o: RunReplayOptions): Promise<ReplayResult> {
  const started = Date.now();
  const s = o.settings;
  const engines = o.engines ?? ENGINES;
  const staticRun = computeFigures(trace, staticPoints(trace), {
    engine: 'static',
    max: s.max,
    flapWindowSeconds: FLAP_WINDOW_SECONDS,
    podTime: staticPodTime(trace, s.max),
  });
  // The simulated engines run at once (in processes of their own with `processes`), each once it
  // holds a slot when there are slots.
  const run = o.processes ? runSimEngineInChild : runSimEngine;
  const simulated = new Map(
    engines
      .filter((e): e is SimEngine => e !== 'static' && e !== 'ideal')
      .map(
        (e) =>
          [
            e,
            inSlot(o.slots, e, SLOT_PRIORITY.engine, () =>
              run(trace, e, s, path.join(o.dir, e), (f) => o.onProgress?.(e, f)),
            ),
          ] as const,
      ),
  );
  // The model runs here while the simulated engines run in theirs (or after them, in-process).
  const model = await inSlot(o.slots, 'model', SLOT_PRIORITY.model, () =>
    modelSide(trace, s, staticRun.allocatedGpuHours),
  );
  o.onModel?.(model.cpuSeconds);
  await Promise.allSettled(simulated.values());
  const runs: EngineRun[] = [];
  for (const engine of engines) {
    const r = await engineRun(trace, s, engine, staticRun, simulated);
    runs.push(r);
    o.onEngine?.(r);
  }
  const verdict = replayVerdict({
    trace,
    hpa: model.analysis.frontiers.hpa,
    gpuops: runs.flatMap((r) =>
      r.figures.engine === 'gpuops-patch' || r.figures.engine === 'gpuops-pr'
        ? [{ engine: r.figures.engine, figures: r.figures, points: r.points }]
        : [],
    ),
    // The frontier's own model settings (the replay's loop), so the HPA row is its frontier point.
    settings: model.settings,
    limits: ONE_SERVICE_LIMITS,
  });
  const wallSeconds = (Date.now() - started) / 1000;
  const { analysis, loops, signals } = model;
  return {
    trace: traceSummary(trace),
    settings: s,
    offered: offeredSeries(trace),
    engines: runs,
    analysis,
    verdict,
    verdicts: [
      ...verdicts(
        runs.map((r) => r.figures),
        analysis.gap,
        // The ≤ 5 min target is for the whole replay: every engine.
        ENGINES.every((e) => engines.includes(e)) ? wallSeconds : undefined,
      ),
      ...loopVerdicts(loops, runs.find((r) => r.figures.engine === 'gpuops-patch')?.figures),
    ],
    loops,
    ...(signals ? { signals } : {}),
    wallSeconds,
  };
}

/** `fn` run holding a slot of `slots` (released however it ends), or at once without slots. */
async function inSlot<T>(
  slots: AcquireSlot | undefined,
  what: string,
  priority: number,
  fn: () => Promise<T>,
): Promise<T> {
  const release = await slots?.(what, priority);
  try {
    return await fn();
  } finally {
    release?.();
  }
}

/** Reversals within this long count as flaps in the engines' table (seconds): the shipped stabilisation window. */
const FLAP_WINDOW_SECONDS = 300;

/** What the model gives beside the engines, and the CPU seconds it took in this process. */
interface ModelSide {
  analysis: ReplayAnalysis;
  loops: LoopResult[];
  signals: SignalComparison | undefined;
  /** The model's settings of the replay's own loop (the frontiers'). */
  settings: ModelSettings;
  cpuSeconds: number;
}

/** The frontiers, the first-half choice, the loops and (with a service series) the signals, through the model. */
async function modelSide(trace: Trace, s: ReplaySettings, staticGpuHours: number): Promise<ModelSide> {
  const cpu = process.cpuUsage();
  const base = await loadDefaultPolicy();
  const maxReplicas = replayMaxReplicas(trace, s.gpusPerNode);
  const settings = loopContext(flagsLoop(s), s, base, maxReplicas).options.settings;
  const analysis = analyse(trace, s, base, maxReplicas);
  const loops = replayLoops(trace, s, base, maxReplicas, analysis);
  const signals = trace.service
    ? compareSignals(trace, {
        settings,
        policy: patchPolicy(base, s, s.headroomFactor),
        hpaTarget: s.hpaTarget,
        staticGpuHours,
      })
    : undefined;
  const used = process.cpuUsage(cpu);
  return { analysis, loops, signals, settings, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** One engine's run: static and ideal computed, a simulated one's result (awaited) with its figures. */
async function engineRun(
  trace: Trace,
  s: ReplaySettings,
  engine: Engine,
  staticRun: EngineFigures,
  simulated: ReadonlyMap<SimEngine, Promise<SimEngineResult>>,
): Promise<EngineRun> {
  const common = { max: s.max, flapWindowSeconds: FLAP_WINDOW_SECONDS };
  const staticGpuHours = staticRun.allocatedGpuHours;
  if (engine === 'static') return { figures: staticRun, points: staticPoints(trace), events: [] };
  if (engine === 'ideal') {
    const points = idealPoints(trace, s.max);
    return {
      figures: computeFigures(trace, points, { engine, ...common, staticGpuHours }),
      points,
      events: [],
    };
  }
  const r = await simulated.get(engine)!;
  return {
    figures: computeFigures(trace, r.points, {
      engine,
      ...common,
      staticGpuHours,
      nodeRelabels: r.nodeRelabels,
      wallSeconds: r.wallSeconds,
    }),
    points: r.points,
    events: r.events,
    cost: { passes: r.passes, cpuSeconds: r.cpuSeconds },
  };
}

/** The trace's source, instants, pods and hours (rounded to 0.01 h). */
function traceSummary(trace: Trace): ReplayResult['trace'] {
  const t0 = trace.instants[0]!.t;
  const last = trace.instants[trace.instants.length - 1]!.t;
  return {
    source: trace.source,
    instants: trace.instants.length,
    pods: trace.pods,
    hours: Math.round(((last - t0) / 3600) * 100) / 100,
  };
}

/** The offered load at each instant: seconds from the start, GPU-percent. */
function offeredSeries(trace: Trace): ReplayResult['offered'] {
  const t0 = trace.instants[0]!.t;
  return trace.instants.map((x) => ({ t: x.t - t0, load: offeredLoad(x) }));
}

/**
 * The loops beside the engines: the replay's own (its choice and gap are the analysis's), the fast
 * loop and, with start-up latencies, the same loop with drawn start-ups (none with `loops: false`).
 */
function replayLoops(
  trace: Trace,
  s: ReplaySettings,
  base: Policy,
  maxReplicas: number,
  analysis: ReplayAnalysis,
): LoopResult[] {
  const own = flagsLoop(s);
  const out = [
    runLoop(trace, own, loopContext(own, s, base, maxReplicas), {
      chosen: analysis.chosen,
      gap: analysis.gap,
      hpa: analysis.frontiers.hpa,
    }),
  ];
  if (s.loops === false) return out;
  const extra = [FAST_LOOP];
  if (s.loopsLatencies)
    extra.push({ ...FAST_LOOP, name: 'drawn start-ups', startupLatencies: s.loopsLatencies });
  for (const spec of extra) out.push(runLoop(trace, spec, loopContext(spec, s, base, maxReplicas)));
  return out;
}

/** The replayed algorithm's `maxReplicas`: every GPU of the fleet but the test node's (see `fleet.ts`). */
export function replayMaxReplicas(trace: Trace, gpusPerNode: number): number {
  const peak = Math.max(1, ...trace.instants.map((x) => x.values.length));
  return (fleetNodeCount({ staticPeakGpus: peak, gpusPerNode }) - 1) * gpusPerNode;
}
