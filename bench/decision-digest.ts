/**
 * Issue 42: a digest of what passes decided, so a change meant only to make a pass faster can be
 * checked, in one line of the loop bench, for the very same decisions before and after.
 *
 * The canonical form is JSON with every object's keys sorted (key order is not a decision), array
 * order kept (the order of decisions, files and writes is part of what a pass produces), Maps as
 * their entries sorted by key and Sets as their members sorted, `undefined` members of objects left
 * out (as JSON does), non-finite numbers and dates spelled out. A function has no canonical form:
 * it throws, so nothing is left out unseen.
 *
 * Plain Node.js (`node:crypto` only): `reconcile.bench.ts` transpiles this file beside
 * `reconcile-pass.ts` for the pass process.
 */
import { createHash } from 'node:crypto';

/**
 * `value` as canonical JSON (see the module comment). Throws a TypeError naming the path (`$.plan.x`)
 * of a function, a symbol or a circular reference.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, '$', new Set());
}

function canonical(v: unknown, at: string, open: Set<object>): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(`#${v}`);
  if (typeof v === 'bigint') return JSON.stringify(`#${v}n`);
  if (v === undefined) return '"#undefined"';
  if (typeof v !== 'object') throw new TypeError(`canonicalJson: ${at} is a ${typeof v}`);
  if (v instanceof Date) return JSON.stringify(`#date ${v.toISOString()}`);
  if (open.has(v)) throw new TypeError(`canonicalJson: ${at} refers back to itself`);
  open.add(v);
  try {
    if (Array.isArray(v)) return `[${v.map((x, i) => canonical(x, `${at}[${i}]`, open)).join(',')}]`;
    if (v instanceof Map) {
      const entries = [...v].map(([k, x]) => [canonical(k, `${at}<key>`, open), x] as const);
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{"#map":[${entries.map(([k, x]) => `[${k},${canonical(x, `${at}<${k}>`, open)}]`).join(',')}]}`;
    }
    if (v instanceof Set) {
      const members = [...v].map((x) => canonical(x, `${at}<member>`, open)).sort();
      return `{"#set":[${members.join(',')}]}`;
    }
    const keys = Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort();
    const body = keys.map(
      (k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k], `${at}.${k}`, open)}`,
    );
    return `{${body.join(',')}}`;
  } finally {
    open.delete(v);
  }
}

/** The sha256 (hex) of {@link canonicalJson} of `value`. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** What of a pass's result (`PassResult`, `pass/summary.ts`) the digest covers. */
export interface DecidedPass {
  plan: unknown;
  changeSets: unknown;
  writeBack: unknown;
  patches: unknown;
  standby?: unknown;
  decisions: number;
  prs: number;
  errors: number;
  reasons?: unknown;
  prActions?: unknown;
  /** The crossing trigger's watchlist; its `judge` (functions) is left out. */
  watch?: object;
}

/** What a pass wrote: commits, pushes and pull-request writes (each 0 on a steady pass). */
export interface PassWrites {
  commits: number;
  pushes: number;
  prWrites: number;
}

/**
 * The part of one pass the digest covers: everything it decided and wrote (the plan, its change
 * sets and write-back, cluster patches, standby outcomes, counters, the crossing watchlist without
 * its functions, and the writes counted), not what it read (the snapshot).
 */
export function decidedPart(r: DecidedPass, writes: PassWrites): unknown {
  const watch = r.watch
    ? Object.fromEntries(Object.entries(r.watch as Record<string, unknown>).filter(([k]) => k !== 'judge'))
    : undefined;
  return {
    plan: r.plan,
    changeSets: r.changeSets,
    writeBack: r.writeBack,
    patches: r.patches,
    standby: r.standby,
    counts: { decisions: r.decisions, prs: r.prs, errors: r.errors },
    reasons: r.reasons,
    prActions: r.prActions,
    watch,
    writes: { commits: writes.commits, pushes: writes.pushes, prWrites: writes.prWrites },
  };
}

/**
 * One digest of several passes in order: the sha256 (hex) of their digests joined, so one line
 * says whether every pass decided the same. Empty input is the digest of nothing.
 */
export function digestOfPasses(digests: readonly string[]): string {
  return createHash('sha256').update(digests.join('\n')).digest('hex');
}
