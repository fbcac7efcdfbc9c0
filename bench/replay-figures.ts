/**
 * `npx tsx bench/replay-figures.ts BEFORE AFTER`: whether two outputs of `npm run replay` (stdout,
 * saved to files) print the same figures — every table, JSON line and verdict — once what the
 * real clock measures is taken out: the `wallSeconds` of the JSON lines, the engines' `wall s`
 * column, and the lines of wall time, CPU time and load average. The figures come from the
 * simulated clock, so a change that only makes the replay faster must leave them identical
 * (issue 42). Prints the first differing lines and exits 1 when they differ, 0 when they agree,
 * 2 on a usage error.
 */
import { readFileSync } from 'node:fs';

/** `text` with what the real clock measures taken out (see the module comment), line by line. */
function figuresOnly(text: string): string[] {
  const out: string[] = [];
  let wallColumn = false;
  for (const line of text.split('\n')) {
    if (/wall time|s wall|s CPU|load average/.test(line)) continue;
    if (/^engine\s.*\swall s$/.test(line)) {
      wallColumn = true;
      out.push(line);
      continue;
    }
    if (wallColumn && line.trim() === '') wallColumn = false;
    const kept = wallColumn ? line.replace(/\s+\S+$/, '') : line;
    out.push(kept.replace(/"wallSeconds":[0-9.e+-]+/g, '"wallSeconds":_'));
  }
  return out;
}

const [before, after] = process.argv.slice(2);
if (!before || !after) {
  process.stderr.write(
    'usage: npx tsx bench/replay-figures.ts BEFORE AFTER (two saved outputs of npm run replay)\n',
  );
  process.exit(2);
}
const a = figuresOnly(readFileSync(before, 'utf8'));
const b = figuresOnly(readFileSync(after, 'utf8'));
const differing: string[] = [];
for (let i = 0; i < Math.max(a.length, b.length); i++)
  if (a[i] !== b[i]) differing.push(`line ${i + 1}:\n  - ${a[i] ?? '(none)'}\n  + ${b[i] ?? '(none)'}`);
if (differing.length === 0) {
  process.stdout.write(
    `same figures: ${a.length} lines of ${before} and ${after} agree (wall and CPU times aside)\n`,
  );
  process.exit(0);
}
process.stdout.write(
  `${differing.length} lines differ between ${before} and ${after}:\n${differing.slice(0, 20).join('\n')}\n`,
);
process.exit(1);
