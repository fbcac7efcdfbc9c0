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
import { replayPlan } from '../src/replay/fleet-args.js';

/** Issue 25: the fleet replay, every engine, within 15 minutes on the 2-core machine. */
const FLEET_WALL_TARGET_SECONDS = 900;
/** Issue 42: the whole replay, every engine and every section, within 5 minutes on the 2-core machine. */
const WHOLE_WALL_TARGET_SECONDS = 300;
/** The entry of one section's process. */
const SECTION = fileURLToPath(new URL('./replay-section.ts', import.meta.url));

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
// Every section at once, each in a process of its own (`replay-section.ts`): the fleets' model
// runs while the one-service replay's simulated engines do, so both cores work until the end.
// Each section's stdout is printed whole, in the order of the plan.
const sections = (
  [
    ['one service', plan.one],
    ['fleet', plan.fleet],
    ['fleet of pod groups', plan.podGroups],
  ] as const
).flatMap(([what, runArgs]) => (runArgs === null ? [] : [{ what, runArgs }]));
const started = Date.now();
const loadAtStart = loadavg()[0]!;
const runs = sections.map(({ what, runArgs }) => ({ what, runArgs, done: runSection(runArgs, started) }));
let code = 0;
const shares: string[] = [];
for (const { what, runArgs, done } of runs) {
  const r = await done;
  if (what !== 'one service')
    process.stdout.write(`\nnpm run replay: the ${what}: gpuops replay ${runArgs.join(' ')}\n`);
  process.stdout.write(r.stdout);
  process.stderr.write(`npm run replay (${what}): ${r.seconds.toFixed(1)} s wall\n`);
  shares.push(`${what} ${Math.round(r.seconds)} s wall, ${Math.round(r.cpuSeconds)} s CPU`);
  // The one-service replay prints its own wall-time verdict; the fleet's target is issue 25's.
  if (what !== 'one service' && r.code === 0)
    process.stdout.write(
      `${r.seconds <= FLEET_WALL_TARGET_SECONDS ? 'ok  ' : 'MISS'}  ${what} replay  wall time ${Math.round(r.seconds)} s (target ≤ ${FLEET_WALL_TARGET_SECONDS} s; load average ${loadavg()[0]!.toFixed(1)})\n`,
    );
  if (code === 0) code = r.code;
}
if (code === 0 && runs.length > 1) {
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `${seconds <= WHOLE_WALL_TARGET_SECONDS ? 'ok  ' : 'MISS'}  whole replay  wall time ${Math.round(seconds)} s (target ≤ ${WHOLE_WALL_TARGET_SECONDS} s; every section at once: ${shares.join('; ')}; load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on ${availableParallelism()} cores)\n`,
  );
}
process.exit(code);

/** What one section gave: its exit code, stdout, wall seconds (from the common start) and CPU seconds. */
interface SectionResult {
  code: number;
  stdout: string;
  seconds: number;
  cpuSeconds: number;
}

/**
 * Runs `gpuops replay --output both ARGS` in a process of its own (stderr passed through, stdout
 * kept to be printed in order). Never rejects: a process that dies without an answer is exit 1.
 */
function runSection(runArgs: readonly string[], since: number): Promise<SectionResult> {
  return new Promise((resolve) => {
    const child = fork(SECTION, [...runArgs], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    const out: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    let answer: { code: number; cpuSeconds: number } = { code: 1, cpuSeconds: 0 };
    child.on('message', (m: { code: number; cpuSeconds: number }) => (answer = m));
    child.once('close', () =>
      resolve({
        ...answer,
        stdout: Buffer.concat(out).toString('utf8'),
        seconds: (Date.now() - since) / 1000,
      }),
    );
  });
}
