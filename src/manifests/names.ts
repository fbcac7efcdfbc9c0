import { createHash } from 'node:crypto';

/** Length of the hash suffix that ends a cut name (hex characters). */
const HASH_LENGTH = 8;

/**
 * Joins `parts` with `-` into a Kubernetes DNS-1123 label (lower-case `a-z0-9-`, starts and ends
 * alphanumeric, at most `maxLen` characters; https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names).
 *
 * Characters outside `a-z0-9-` become `-`, runs of `-` collapse, leading and trailing `-` go.
 * When the result is too long, or had to be changed at all, it is cut and ends with `-` plus the
 * first 8 hex characters of the sha256 of the original joined text, so that two long names
 * that share a prefix stay different (the cdk8s convention).
 *
 * @param parts  name parts, e.g. `['bench', 'resnet50-infer', 'a1b2c3', '1']`; empty parts are skipped
 * @param maxLen at most 63 (a label); at least 10, to leave room for the hash
 * @throws RangeError when `maxLen` is outside 10..63 or no part has a usable character
 */
export function dnsLabel(parts: readonly string[], maxLen = 63): string {
  if (!Number.isInteger(maxLen) || maxLen < HASH_LENGTH + 2 || maxLen > 63) {
    throw new RangeError(`dnsLabel: maxLen must be an integer in ${HASH_LENGTH + 2}..63, got ${maxLen}`);
  }
  const joined = parts.filter((p) => p !== '').join('-');
  // A run of characters outside a-z0-9, dashes included, becomes one dash: that both replaces
  // and collapses, so at most one dash is left at either end.
  const clean = joined
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  if (clean === '') throw new RangeError(`dnsLabel: no usable character in ${JSON.stringify(parts)}`);
  if (clean === joined && clean.length <= maxLen) return clean;
  const suffix = createHash('sha256').update(joined).digest('hex').slice(0, HASH_LENGTH);
  // `clean` starts with a letter or digit and maxLen - 9 ≥ 1, so `head` is never empty.
  const head = clean.slice(0, maxLen - HASH_LENGTH - 1).replace(/-$/, '');
  return `${head}-${suffix}`;
}

/** Kubernetes label values: at most 63 characters (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set). */
export const LABEL_VALUE_MAX = 63;
