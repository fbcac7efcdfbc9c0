/**
 * `gpuops replay` of one service: every engine of `--engines` (the simulated ones run the real
 * reconcile pass in child processes) over one trace; progress on stderr, the figures on stdout as
 * `--output` asks (JSON lines, then the table, the analysis and the targets), and with
 * `--report DIR` `index.html`, `figures.jsonl` and `analysis.json` in DIR.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { availableParallelism } from 'node:os';
import path from 'node:path';
import {
  formatAnalysis,
  formatTable,
  formatLoops,
  renderReport,
  runReplay,
  type Engine,
  type EngineRun,
  type ReplayResult,
  formatSignals,
  formatVerdicts,
  formatVerdict,
  progressReporter,
  parentSlots,
  reportPartCpu,
  replaySlotCount,
  SlotPool,
  type AcquireSlot,
} from '../../replay/index.js';
import type { ReplaySettings, Trace } from '../../replay/index.js';
import { makeDirs } from '../../disk/index.js';
import type { ReplayFlags } from './replay-options.js';

/** The progress line of one finished engine (its passes and CPU time when it ran the pass). */
function engineDone(e: EngineRun): string {
  const c = e.cost;
  const cost = c
    ? ` (${c.passes} passes, ${c.cpuSeconds.toFixed(1)} s CPU, ${((c.cpuSeconds / Math.max(1, c.passes)) * 1000).toFixed(0)} ms CPU per pass)`
    : '';
  return `  ${e.figures.engine} done${cost}\n`;
}

/** Prints the figures as `output` asks: JSON lines (`jsonl`, `both`), the table, analysis and targets (`table`, `both`). */
function printResult(result: ReplayResult, settings: ReplaySettings, output: ReplayFlags['output']): void {
  const figures = result.engines.map((e) => e.figures);
  if (output !== 'table') process.stdout.write(figuresLines(result));
  if (output === 'jsonl') return;
  process.stdout.write(formatVerdict(result.verdict));
  process.stdout.write(formatTable(figures));
  if (result.signals) process.stdout.write(formatSignals(result.signals, settings));
  process.stdout.write(formatAnalysis(result.analysis, settings, figures));
  process.stdout.write(formatLoops(result.loops));
  process.stdout.write(`targets:\n${formatVerdicts(result.verdicts)}`);
}

/** One JSON line per engine's figures. */
function figuresLines(result: ReplayResult): string {
  return result.engines.map((e) => JSON.stringify(e.figures)).join('\n') + '\n';
}

/** Writes `index.html`, `figures.jsonl` and `analysis.json` into `dir` (made when missing). */
function writeReport(result: ReplayResult, dir: string): void {
  const out = path.resolve(dir);
  makeDirs(out);
  writeFileSync(path.join(out, 'index.html'), renderReport(result));
  writeFileSync(path.join(out, 'figures.jsonl'), figuresLines(result));
  writeFileSync(
    path.join(out, 'analysis.json'),
    JSON.stringify(
      {
        verdict: result.verdict,
        analysis: result.analysis,
        verdicts: result.verdicts,
        ...(result.signals ? { signals: result.signals } : {}),
      },
      null,
      2,
    ) + '\n',
  );
  process.stderr.write(`report: ${path.join(out, 'index.html')}\n`);
}

/**
 * The slots the engines and the model take: the parent's when it serves them
 * (`GPUOPS_REPLAY_SLOTS=parent`, as `npm run replay` does for every section at once), else one
 * more than the cores of this machine (`replaySlotCount`).
 */
function replaySlots(): AcquireSlot {
  if (process.env.GPUOPS_REPLAY_SLOTS === 'parent' && process.send) return parentSlots();
  return new SlotPool(replaySlotCount(availableParallelism())).acquire;
}

/**
 * Replays one service's `trace` through `engines` with `settings`, in `--work-dir` (kept) or a
 * temporary folder (removed after, also on failure). @throws Error from the engines
 */
export async function replayOneService(
  trace: Trace,
  f: ReplayFlags,
  settings: ReplaySettings,
  engines: readonly Engine[],
): Promise<void> {
  const dir = f.workDir ? path.resolve(f.workDir) : mkdtempSync(path.join(os.tmpdir(), 'gpuops-replay-'));
  const err = process.stderr;
  err.write(`gpuops replay: ${trace.instants.length} instants of ${f.trace} through ${engines.join(', ')}\n`);
  const simulated = engines.filter((e) => e !== 'static' && e !== 'ideal');
  const progress = progressReporter(simulated, Date.now());
  try {
    const result = await runReplay(trace, {
      settings,
      dir,
      engines,
      processes: true,
      slots: replaySlots(),
      onEngine: (e) => {
        err.write(engineDone(e));
        if (e.cost) reportPartCpu(e.figures.engine, e.cost.cpuSeconds);
      },
      onModel: (cpu) => {
        err.write(`  model done (frontiers, loops, signals: ${cpu.toFixed(1)} s CPU)\n`);
        reportPartCpu('model', cpu);
      },
      onProgress: (engine, fraction) => {
        const line = progress.update(engine, fraction, Date.now());
        if (line) err.write(`${line}\n`);
      },
    });
    printResult(result, settings, f.output);
    if (f.report) writeReport(result, f.report);
    err.write(`replay took ${result.wallSeconds.toFixed(1)} s\n`);
  } finally {
    if (!f.workDir) rmSync(dir, { recursive: true, force: true });
  }
}
