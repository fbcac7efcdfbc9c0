/**
 * Issue 14.3: the CLI as users and CI start it (`node bin/gpuops.js`, which runs the compiled
 * `dist/`, rebuilt first when older than `src/`), timed as whole processes: `--version`,
 * `validate` of the example GitOps repo, `plan` on the 13-node fixture. Each runs RUNS times;
 * the median is held to its target and the minimum printed beside it, with a bare `node -e 0`
 * measured in the same run (on a shared machine it shows what the load alone costs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ensureDist from '../test/support/build-dist.js';
import type { Figure } from './run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = 7;

/** One run of a command: wall and CPU time (user + system), ms. */
interface Run {
  wallMs: number;
  cpuMs: number;
}

/**
 * RUNS runs of `node args…` (sorted by wall time); CPU time from GNU time when installed (on a
 * shared machine wall time waits for the cores, CPU time does not). Fails on an unexpected exit.
 */
function time(args: string[], okCodes: number[], cwd = ROOT): Run[] {
  const gnuTime = existsSync('/usr/bin/time');
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = gnuTime
      ? spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, ...args], { cwd, encoding: 'utf8' })
      : spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
    const wallMs = performance.now() - t0;
    if (r.status === null || !okCodes.includes(r.status))
      throw new Error(`node ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    const cpu = /cpu (\d+\.\d+) (\d+\.\d+)\s*$/.exec(r.stderr);
    runs.push({ wallMs, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : Number.NaN });
  }
  return runs.sort((a, b) => a.wallMs - b.wallMs);
}

const median = (t: number[]) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)]!;

export default async function bench(): Promise<Figure[]> {
  ensureDist();
  // plan reads stored benchmarks from the default database in the working directory: a fresh one.
  const work = mkdtempSync(path.join(tmpdir(), 'gpuops-bench-cli-'));
  const bin = path.join(ROOT, 'bin/gpuops.js');
  const fixture = path.join(ROOT, 'test/fixtures/cluster-mixed');
  try {
    const cases: { name: string; args: string[]; ok: number[]; target?: number }[] = [
      { name: 'node -e 0 (no gpuops: the machine)', args: ['-e', '0'], ok: [0] },
      { name: 'gpuops --version', args: [bin, '--version'], ok: [0], target: 300 },
      {
        // The example repo holds one invalid spec on purpose: exit 1 is the expected answer.
        name: 'gpuops validate examples/gitops-repo',
        args: [bin, 'validate', path.join(ROOT, 'examples/gitops-repo')],
        ok: [1],
        target: 800,
      },
      {
        name: 'gpuops plan on the 13-node fixture (cluster-mixed)',
        args: [
          bin,
          'plan',
          '--repo',
          path.join(ROOT, 'test/fixtures/repos/valid'),
          '--nodes',
          path.join(fixture, 'nodes.json'),
          '--pods',
          path.join(fixture, 'pods.json'),
        ],
        ok: [0],
        target: 1500,
      },
    ];
    const figures: Figure[] = [];
    let bare = 0;
    for (const c of cases) {
      const runs = time(c.args, c.ok, work);
      const t = runs.map((r) => r.wallMs);
      if (bare === 0) bare = median(t);
      figures.push({
        name: `cli: ${c.name}, median of ${RUNS} (min ${Math.round(t[0]!)} ms)`,
        value: median(t),
        unit: 'ms',
        ...(c.target === undefined ? {} : { target: c.target }),
      });
      figures.push({
        name: `cli: ${c.name}, CPU time (median)`,
        value: median(runs.map((r) => r.cpuMs)),
        unit: 'ms',
      });
      if (c.target !== undefined)
        figures.push({ name: `cli: ${c.name} ÷ bare node, medians`, value: median(t) / bare, unit: '×' });
    }
    return figures;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
