/**
 * Kubernetes resource quantities (`resources.cpu`, `resources.memory`), after
 * https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/ :
 *
 * ```
 * <quantity>        ::= <signedNumber><suffix>
 * <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
 * <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
 * <decimalSI>       ::= m | "" | k | M | G | T | P | E
 * <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
 * <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
 * ```
 *
 * A resource request is never negative, so gpuops also rejects a leading `-`.
 */
const NUMBER = String.raw`(?:\d+(?:\.\d*)?|\.\d+)`;
const QUANTITY = new RegExp(String.raw`^\+?${NUMBER}(?:[KMGTPE]i|[mkMGTPE]|[eE][+-]?${NUMBER})?$`);

/** True when `text` is a valid, non-negative Kubernetes quantity (`500m`, `4`, `16Gi`, `16G`, `1e3`). */
export function isQuantity(text: string): boolean {
  return QUANTITY.test(text);
}

/**
 * Explains why `text` is not a quantity and, when a close spelling is valid, suggests it:
 * `16g` → "did you mean 16Gi or 16G?", `16GB` → "did you mean 16Gi or 16G?", `16 Gi` → "16Gi".
 * Returns the whole message (without the field name).
 */
export function quantityMessage(text: string): string {
  const base =
    `"${text}" is not a Kubernetes quantity: a number with an optional suffix ` +
    '(m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei), e.g. 500m, 4, 16Gi';
  if (/^\s*-/.test(text)) return `"${text}" is negative; a resource request is at least 0`;
  const compact = text.replace(/\s+/g, '');
  const candidates = [compact];
  // A number, then a unit letter, an optional "i" and an optional "b": 16g, 16gi, 16GB, 16GiB.
  const m = /^(\+?(?:\d+(?:\.\d*)?|\.\d+))([kmgtpe])(i?)(b?)$/i.exec(compact);
  if (m) {
    const [, num, letter, i] = m as unknown as [string, string, string, string];
    const upper = letter.toUpperCase();
    candidates.push(`${num}${upper}i`);
    if (i === '') candidates.push(upper === 'K' ? `${num}k` : `${num}${upper}`);
  }
  const unique = [...new Set(candidates)].filter((c) => c !== text && isQuantity(c));
  if (unique.length === 0) return base;
  return `${base}; did you mean ${unique.join(' or ')}?`;
}
