/**
 * `npm run replay`: the full utilisation trace through every engine (a benchmark script, not a
 * test). Reads `../shared/data/traces/alibaba-genai-v2026-pod-gpu-util/pod_gpu_duty_cycle_anon.csv`
 * beside the main checkout (research-use data, never copied into the project), or the file given
 * with `--trace`; on a clone without it, the synthetic day (`--synthetic`, `src/replay/synthetic-day.ts`); other flags go to `gpuops replay` as they are (`--hours H`, `--from-hours H`
 * replay a slice). Beside it (every section at once, each in a process of its own) the fleet (issue 25 section 3): four services sharing one pool on 16 nodes,
 * with the same trace, slice, delays and thresholds (`src/replay/fleet-args.ts`: `--no-fleet` or
 * `--engines` leave it out; `--services`, `--group-by` or `--nodes` run that fleet alone). With
 * the trace's `qps.csv` beside it, the one-service replay also scales on requests per second per
 * replica (`--service-file`, `src/replay/signal-compare.ts`) and prints it beside the duty cycle. Prints
 * every figure of every engine (table and JSON lines), each section's wall and CPU time and the
 * whole replay's wall time beside its target.
 */
import { execFileSync, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_TRACE, bundledTraceCandidates } from '../src/cli/bundled-trace.js';
import ensureDist from '../test/support/build-dist.js';
import { replayPlan } from '../src/replay/fleet-args.js';
import { serveSlots } from '../src/replay/slot-channel.js';
import { replaySlotCount, SlotPool } from '../src/replay/slots.js';
import { formatTimeline, SlotTimeline } from '../src/replay/slot-timeline.js';

/** Issue 25: the fleet replay, every engine, within 15 minutes on the 2-core machine. */
const FLEET_WALL_TARGET_SECONDS = 900;
/** Issue 42: the whole replay, every engine and every section, within 5 minutes on the 2-core machine. */
const WHOLE_WALL_TARGET_SECONDS = 300;
/**
 * The entry of one section's process, and the Node.js flags it starts with: the compiled
 * `dist/cli/replay-section.js` in plain Node.js (rebuilt first when `src/` is newer, as the
 * tests and the other benches do), so neither the section nor the simulated engines it starts
 * (`engine-process.ts` starts them with the section's flags) load tsx and compile the sources:
 * about 4 s of CPU a process, and tsx's loader thread beside each while it runs.
 */
const SECTION = fileURLToPath(new URL('../dist/cli/replay-section.js', import.meta.url));
const SECTION_EXEC_ARGV = withoutTsx(process.execArgv);

/** The bundled trace's model-load latencies (milliseconds), in the trace's folder. */
const LATENCY_FILE = 'basemodel_update_latency_anon.csv';
/** The bundled trace's requests per second per pod, in the trace's folder. */
const QPS_FILE = 'qps.csv';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Where the default trace may be, in order: beside the main worktree (the parent of
 * `git rev-parse --git-common-dir`, so a linked worktree such as `/work/wt/x` finds
 * `/work/shared`), then `shared/` in this checkout's parent and every folder above it.
 */
function traceCandidates(): string[] {
  const out: string[] = [];
  try {
    const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    out.push(path.join(path.dirname(path.dirname(common)), BUNDLED_TRACE));
  } catch {
    // Not a git checkout (or no git): the walk below still looks.
  }
  out.push(...bundledTraceCandidates(ROOT));
  return [...new Set(out)];
}

const args = process.argv.slice(2);
if (!args.some((a) => /^--(trace|synthetic)(=|$)/.test(a))) {
  const candidates = traceCandidates();
  const found = candidates.find((f) => existsSync(f));
  if (found === undefined) {
    // Any clone: the synthetic day, whose statistics follow the trace's published figures.
    process.stderr.write(
      `npm run replay: no trace at ${candidates[0]} (nor at ${candidates.slice(1).join(', ')}); replaying the synthetic day (seed 1) that follows its published figures instead (docs/replay.md says where the trace is and how to extract it; --trace FILE replays it)\n`,
    );
    args.unshift('--synthetic=1');
  } else {
    process.stderr.write(`npm run replay: the trace ${found}\n`);
    args.unshift('--trace', found);
  }
}
// Issue 42: the drawn start-ups' loop reads the model-load latencies beside the trace (never copied).
const traceFile = args[args.indexOf('--trace') + 1]!;
const latencies = path.join(path.dirname(traceFile), LATENCY_FILE);
if (!args.includes('--loops-latency-file') && !args.includes('--no-loops') && existsSync(latencies))
  args.push('--loops-latency-file', latencies);
const plan = replayPlan(args);
// Issue 44: the one service also on requests per second per replica beside the duty cycle (read
// beside the trace, never copied); a fleet replays the duty cycle alone.
const qps = path.join(path.dirname(traceFile), QPS_FILE);
if (plan.one && !plan.one.includes('--service-file') && existsSync(qps)) plan.one.push('--service-file', qps);
// Every section at once, each in a process of its own (`replay-section.ts`), and the one-service
// section's simulated engines each in theirs; every CPU-bound part (an engine, the model, a
// fleet section) waits for one of the slots served here, one more than the cores (an engine keeps
// its core busy about five sixths of the time; the extra part fills the rest), the longest parts
// first (`src/replay/slots.ts`), so both cores work until the end.
// Nothing is granted until the one-service section has asked for its parts (it reads the trace
// first), else the short fleets would take the cores before the engines. Each section's stdout is
// printed whole, in the order of the plan.
const sections = (
  [
    ['one service', plan.one],
    ['fleet', plan.fleet],
    ['fleet of pod groups', plan.podGroups],
  ] as const
).flatMap(([what, runArgs]) => (runArgs === null ? [] : [{ what, runArgs }]));
ensureDist();
const started = Date.now();
const cpuAtStart = process.cpuUsage();
const loadAtStart = loadavg()[0]!;
const cores = availableParallelism();
const slots = new SlotPool(replaySlotCount(cores));
// Where the wall time goes: each part's slot and each section's start, first ask and end (stderr).
const timeline = new SlotTimeline(() => (Date.now() - started) / 1000);
if (plan.one) slots.pause();
// The one-service section asks for its engines and the model in one go: a moment to hear them all.
const gathered = () =>
  setTimeout(() => {
    timeline.mark('slots granted');
    slots.resume();
  }, 200);
const runs = sections.map(({ what, runArgs }) => ({
  what,
  runArgs,
  done: runSection(what === 'one service' ? runArgs : ['--whole-slot', ...runArgs], started, slots, {
    what,
    timeline,
    ...(what === 'one service' ? { onFirstAsk: gathered } : {}),
  }),
}));
let code = 0;
const shares: string[] = [];
/** Every part's CPU seconds (an engine, the model, a fleet section, a section's own work). */
const parts: { what: string; cpuSeconds: number }[] = [];
for (const { what, runArgs, done } of runs) {
  const r = await done;
  if (what !== 'one service')
    process.stdout.write(`\nnpm run replay: the ${what}: gpuops replay ${runArgs.join(' ')}\n`);
  process.stdout.write(r.stdout);
  process.stderr.write(`npm run replay (${what}): ${r.seconds.toFixed(1)} s wall\n`);
  shares.push(`${what} ${Math.round(r.seconds)} s wall, ${Math.round(r.cpuSeconds)} s CPU${partsText(r)}`);
  const inParts = r.parts.reduce((sum, p) => sum + p.cpuSeconds, 0);
  parts.push(...(r.parts.length > 0 ? r.parts : [{ what, cpuSeconds: r.cpuSeconds }]));
  if (r.parts.length > 0) parts.push({ what: `${what}'s own`, cpuSeconds: r.cpuSeconds - inParts });
  // The one-service replay prints its own wall-time verdict; the fleet's target is issue 25's.
  if (what !== 'one service' && r.code === 0)
    process.stdout.write(
      `${r.seconds <= FLEET_WALL_TARGET_SECONDS ? 'ok  ' : 'MISS'}  ${what} replay  wall time ${Math.round(r.seconds)} s (target ≤ ${FLEET_WALL_TARGET_SECONDS} s; load average ${loadavg()[0]!.toFixed(1)})\n`,
    );
  if (code === 0) code = r.code;
}
if (code === 0 && runs.length > 1) {
  const seconds = (Date.now() - started) / 1000;
  const own = process.cpuUsage(cpuAtStart);
  parts.push({ what: 'the runner', cpuSeconds: (own.user + own.system) / 1e6 });
  process.stderr.write(formatTimeline(timeline, slots.size, seconds));
  process.stdout.write(
    `${seconds <= WHOLE_WALL_TARGET_SECONDS ? 'ok  ' : 'MISS'}  whole replay  wall time ${Math.round(seconds)} s (target ≤ ${WHOLE_WALL_TARGET_SECONDS} s; every section at once: ${shares.join('; ')}; load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on ${cores} cores; ${idleEstimate(parts, cores)})\n`,
  );
}
process.exit(code);

/** `argv` less tsx's loader (`--import tsx`, `--import=tsx`, `--loader tsx`…): the flags of a process that runs compiled JavaScript. */
function withoutTsx(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (
      (a === '--import' || a === '--loader' || a === '--require' || a === '-r') &&
      /^tsx(\/|$)/.test(argv[i + 1] ?? '')
    )
      i++;
    else if (!/^(--import|--loader|--require)=tsx(\/|$)/.test(a)) out.push(a);
  }
  return out;
}

/** What one section gave: its exit code, stdout, wall seconds (from the common start) and CPU seconds. */
interface SectionResult {
  code: number;
  stdout: string;
  seconds: number;
  cpuSeconds: number;
  /** The CPU seconds of each part it ran in a process of its own (the one service's engines, its model). */
  parts: { what: string; cpuSeconds: number }[];
}

/** ` (hpa 109 s, gpuops-patch 127 s, …)`: a section's parts' CPU seconds, or nothing. */
function partsText(r: SectionResult): string {
  if (r.parts.length === 0) return '';
  return ` (${r.parts.map((p) => `${p.what} ${p.cpuSeconds.toFixed(1)} s`).join(', ')})`;
}

/**
 * The wall time the parts need on `cores` idle cores, at least: their CPU seconds shared by the
 * cores, or the longest part when it is longer (an estimate from the CPU measured here, not a
 * measurement: a loaded machine stretches the wall time, not the CPU time).
 */
function idleEstimate(all: readonly { what: string; cpuSeconds: number }[], cores: number): string {
  const total = all.reduce((sum, p) => sum + p.cpuSeconds, 0);
  const longest = all.reduce((a, b) => (b.cpuSeconds > a.cpuSeconds ? b : a));
  const bound = Math.max(total / cores, longest.cpuSeconds);
  return `on ${cores} idle cores ≥ ${Math.round(bound)} s: ${Math.round(total)} s CPU ÷ ${cores}, the longest part ${longest.what} ${Math.round(longest.cpuSeconds)} s; an estimate`;
}

/**
 * Runs `gpuops replay --output both ARGS` in a process of its own (stderr passed through, stdout
 * kept to be printed in order). Never rejects: a process that dies without an answer is exit 1.
 */
function runSection(
  runArgs: readonly string[],
  since: number,
  slots: SlotPool,
  o: { what: string; timeline: SlotTimeline; onFirstAsk?: () => void },
): Promise<SectionResult> {
  return new Promise((resolve) => {
    const child = fork(SECTION, [...runArgs], {
      execArgv: SECTION_EXEC_ARGV,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      env: { ...process.env, GPUOPS_REPLAY_SLOTS: 'parent' },
    });
    const out: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    const parts: SectionResult['parts'] = [];
    serveSlots(child, { acquire: o.timeline.timed(slots.acquire, o.what) }, (what, cpuSeconds) =>
      parts.push({ what, cpuSeconds }),
    );
    let answer: { code: number; cpuSeconds: number } = { code: 1, cpuSeconds: 0 };
    let asked = false;
    child.on('message', (m: { code?: number; cpuSeconds?: number; slot?: string }) => {
      if (m.slot === 'ask' && !asked) {
        asked = true;
        o.timeline.mark(`${o.what}: first ask`);
        o.onFirstAsk?.();
      }
      if (typeof m.code === 'number') answer = { code: m.code, cpuSeconds: m.cpuSeconds ?? 0 };
    });
    child.once('close', () => {
      o.timeline.mark(`${o.what}: end`);
      // A section that ends without asking (a failure) must not hold the others back.
      if (!asked) o.onFirstAsk?.();
      resolve({
        ...answer,
        parts,
        stdout: Buffer.concat(out).toString('utf8'),
        seconds: (Date.now() - since) / 1000,
      });
    });
  });
}
