/**
 * Text helpers the pull-request title and body share (pure): Markdown cells and tables (cut to a
 * number of rows with "… and N more"), lists in prose, and the pool moves of a change.
 */
import type { ScalingDecision } from '../scaling/index.js';
import type { PoolAssignment } from '../pools/index.js';
import { byString, escapeControl } from '../util/index.js';

/** A Markdown table cell: pipes escaped, newlines folded, empty shown as `—`. */
export function cell(v: string | number | null): string {
  if (v === null || v === '') return '—';
  return String(v).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * Text gpuops did not write (spec text, a file path or an author from Git) as inert Markdown: one
 * code span that no backtick inside can close (CommonMark 6.1: a fence longer than any backtick
 * run, padded with a space when needed), so no mention, link, image, HTML or emphasis in it is
 * live on GitHub; control characters escaped (one line, no bidi reordering: `escapeControl`); and
 * `<!--` broken by a zero-width space, so it can never read as one of gpuops's hidden markers.
 */
export function inert(text: string): string {
  const safe = escapeControl(text).replace(/<!--/g, '<!-\u200b-');
  if (safe === '') return '` `';
  const longest = Math.max(0, ...[...safe.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || safe.startsWith(' ') || safe.endsWith(' ') ? ' ' : '';
  return `${fence}${pad}${safe}${pad}${fence}`;
}

/** {@link inert} text as a cell of a GFM table: a pipe is escaped (GFM takes `\|` out before the code span is read). */
export function inertCell(text: string): string {
  return inert(text).replace(/\|/g, '\\|');
}

/** A figure with one decimal, `—` when missing. */
export function num(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '—' : v.toFixed(1);
}

/** `1,234` (en-US grouping, fixed so output never depends on the locale). */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `1 node`, `12 nodes`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/**
 * A Markdown table. With `maxRows` below the row count only the first `maxRows` rows are shown,
 * followed by a line `… and N more <what>` (so a cut table always says how much it left out).
 */
export function table(
  header: string[],
  rows: (string | number | null)[][],
  maxRows = Number.POSITIVE_INFINITY,
  what = 'rows',
): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`];
  const shown = rows.length > maxRows ? rows.slice(0, maxRows) : rows;
  for (const r of shown) lines.push(`| ${r.map(cell).join(' | ')} |`);
  if (shown.length < rows.length) lines.push('', `… and ${count(rows.length - shown.length)} more ${what}`);
  return lines.join('\n');
}

/** `a`, `a and b`, `a, b and c`. */
export function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The assignments that change a node's pool, by node name. */
export function poolMoves(pools: readonly PoolAssignment[] | undefined): PoolAssignment[] {
  return [...(pools ?? [])].filter((p) => p.from !== p.to).sort((a, b) => byString(a.node, b.node));
}

/**
 * How claimed standby pods split a scaling decision, said for a reviewer (docs/standby.md, "Claims
 * and Git"): `3 → 5: 1 claimed standby pod counted in 3, 1 standby pod claimed now; Deployment 2 →
 * 3 in Git, which with the 2 claimed pods makes 5`. Null when no standby pod takes part (Git's
 * replicas are the decision's). `d.standby` as `planStandby` wrote it.
 */
export function standbySplitText(d: Pick<ScalingDecision, 'replicas' | 'standby'>): string | null {
  const sb = d.standby;
  if (!sb || (sb.claimed === 0 && sb.claim === 0 && sb.giveBack === 0)) return null;
  const { from, to } = d.replicas;
  const git = from - sb.claimed;
  const kept = sb.claimed + sb.claim - sb.giveBack;
  const parts = [
    ...(sb.claimed > 0 ? [`${plural(sb.claimed, 'claimed standby pod')} counted in ${from}`] : []),
    ...(sb.claim > 0 ? [`${plural(sb.claim, 'standby pod')} claimed now`] : []),
    ...(sb.giveBack > 0 ? [`${plural(sb.giveBack, 'claimed pod')} given back`] : []),
  ];
  const inGit =
    sb.deployment === 0
      ? `Deployment stays at ${git} in Git`
      : `Deployment ${git} → ${git + sb.deployment} in Git`;
  const rest =
    kept === 0 ? 'no claimed pod left' : `which with the ${plural(kept, 'claimed pod')} makes ${to}`;
  return `${from} → ${to}: ${parts.join(', ')}; ${inGit}, ${rest}`;
}
