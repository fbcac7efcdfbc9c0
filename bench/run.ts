/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or those named on the command line) and prints
 * one JSON line per figure, then a table. Each bench module's default export returns its figures.
 */
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** One measured figure. `target` is the goal in the same unit, when there is one (lower is better). */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: number;
}

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const all: Figure[] = [];
const failed: string[] = [];
// Wall times on a shared machine depend on its load: the 1-minute load average goes beside them.
const loadAtStart = loadavg()[0]!;
for (const f of files) {
  // One failing bench never hides the figures of the others; it fails the run.
  try {
    const mod = (await import(path.join(dir, f))) as { default: () => Promise<Figure[]> };
    for (const fig of await mod.default()) {
      all.push(fig);
      process.stdout.write(`${JSON.stringify(fig)}\n`);
    }
  } catch (err) {
    failed.push(f);
    process.stderr.write(`${f} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
}

for (const [when, value] of [
  ['start', loadAtStart],
  ['end', loadavg()[0]!],
] as const) {
  const fig: Figure = {
    name: `machine load average (1 min) at the ${when} (${cpus().length} cores)`,
    value,
    unit: '',
  };
  all.push(fig);
  process.stdout.write(`${JSON.stringify(fig)}\n`);
}

const rows = all.map((f) => [
  f.name,
  `${Number.isInteger(f.value) ? f.value : f.value.toFixed(2)} ${f.unit}`,
  f.target === undefined ? '' : `< ${f.target} ${f.unit}`,
  f.target === undefined ? '' : f.value < f.target ? 'ok' : 'MISSED',
]);
const head = ['figure', 'value', 'target', ''];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) =>
  r
    .map((c, i) => c.padEnd(widths[i]!))
    .join('  ')
    .trimEnd();
process.stdout.write(`\n${line(head)}\n${rows.map(line).join('\n')}\n`);
if (failed.length > 0) process.stdout.write(`\nFAILED: ${failed.join(', ')}\n`);
// Exit 1 only when a target is missed (or a bench could not run).
if (failed.length > 0 || all.some((f) => f.target !== undefined && f.value >= f.target)) process.exitCode = 1;
// Everything the benches open they close, so the process ends here by itself. Should something
// stay open (a server, a pool, a timer), say what after a grace period instead of hanging silently;
// the timer itself never keeps the process alive.
setTimeout(() => {
  const open = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
  process.stderr.write(
    `bench: still running 10 s after its figures; open handles: ${open.join(', ') || 'none'}\n`,
  );
}, 10_000).unref();
