import { createHash } from 'node:crypto';
import type { ChangeKind } from './types.js';

/** Longest branch name gpuops produces (GitHub refuses refs longer than 255 bytes). */
export const MAX_BRANCH_LENGTH = 255;

function shortHash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 8);
}

/**
 * One path component of a ref, made valid for `git check-ref-format`: only `[A-Za-z0-9._-]`, no
 * leading `.`/`-`, no `..`, no trailing `.` or `.lock`. When cleaning changed the value, a short
 * hash of the original is appended so two different inputs never share a branch.
 */
function component(raw: string): string {
  let s = raw
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+/, '')
    .replace(/[.]+$/, '')
    .replace(/\.lock$/i, '-lock');
  if (s === '') s = 'x';
  return s === raw ? s : `${s}-${shortHash(raw)}`;
}

/**
 * The branch of one subject (docs/design.md, "Labels and names"): `gpuops/<cluster>/<kind>/<subject>`,
 * node pools `gpuops/<cluster>/pools`. Stable: the same inputs always give the same name. Always a
 * valid ref of at most {@link MAX_BRANCH_LENGTH} characters; a name that would be longer is cut
 * and ends with an 8-character hash of the full name so two long subjects stay distinct.
 */
export function branchName(cluster: string, kind: ChangeKind, subject: string): string {
  const name =
    kind === 'pools'
      ? `gpuops/${component(cluster)}/pools`
      : `gpuops/${component(cluster)}/${kind}/${component(subject)}`;
  if (name.length <= MAX_BRANCH_LENGTH) return name;
  const suffix = `-${shortHash(name)}`;
  return name.slice(0, MAX_BRANCH_LENGTH - suffix.length).replace(/[./-]+$/, '') + suffix;
}

/** The prefix every gpuops branch of a cluster starts with: `gpuops/<cluster>/`. */
export function branchPrefix(cluster: string): string {
  return branchName(cluster, 'pools', '').slice(0, -'pools'.length);
}
