/**
 * `node --import tsx bench/replay-bound.ts [TRACE]`: how much utilisation any reactive sizing of
 * the replay's kind can reach at ≤ 2 % pod-time above max on a trace (a benchmark script, not a
 * test). It prints the replay's own causal bound (`src/replay/causal-bound.ts`,
 * `reactionBound`): the family R(W, β) sizing for the highest load seen over the last W seconds
 * with β·√M spare, on 15 s ticks, new pods Ready 60 s after the decision and holding their GPU
 * from it, as `figures.ts` counts gpuops and the HPA; measured at the replay's delays from a load
 * change to Ready (`REACTION_DELAYS`: a 15 s sample delay with the decision at once, or a pass
 * 30 s later, then the 60 s start-up: 75 s and 105 s), no limit on unserved load, max 80 %.
 * Default trace: the one `npm run replay` reads.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REACTION_DELAYS, reactionBound } from '../src/replay/causal-bound.js';
import { medianStep, parseTrace } from '../src/replay/trace.js';

const TRACE = 'shared/data/traces/alibaba-genai-v2026-pod-gpu-util/pod_gpu_duty_cycle_anon.csv';
const MAX = 80;

function defaultTrace(): string {
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    encoding: 'utf8',
  }).trim();
  return path.join(path.dirname(path.dirname(common)), TRACE);
}

const file = process.argv[2] ?? defaultTrace();
const trace = parseTrace(readFileSync(file, 'utf8'), file);
process.stdout.write(`${file}: ${trace.instants.length} instants, ${medianStep(trace)} s apart (median)\n`);
for (const delay of REACTION_DELAYS) {
  const started = process.cpuUsage();
  const { best, tried } = reactionBound(trace, delay, MAX);
  const cpu = process.cpuUsage(started);
  const head = `sample delay ${delay} s (${delay + 60} s to Ready), ${tried} rules`;
  const cpuText = `${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`;
  process.stdout.write(
    best === null
      ? `${head}: no rule keeps ≤ 2 % above max (${cpuText})\n`
      : `${head}: best ${best.utilizationPercent.toFixed(1)} % utilisation at ${best.aboveMaxPercent.toFixed(2)} % above max, ${best.unservedPercent.toFixed(3)} % unserved (W ${best.windowSeconds} s, β ${best.beta}; ${cpuText})\n`,
  );
}
