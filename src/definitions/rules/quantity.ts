/**
 * Kubernetes resource quantities (`resources.cpu`, `resources.memory`), after
 * https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/ :
 *
 * ```
 * <quantity>        ::= <signedNumber><suffix>
 * <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
 * <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
 * <decimalSI>       ::= m | "" | k | M | G | T | P | E
 * <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>   (a whole number, as parsed)
 * <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
 * ```
 *
 * A resource request is never negative, so gpuops also rejects a leading `-`.
 */
const NUMBER = String.raw`(?:\d+(?:\.\d*)?|\.\d+)`;
const QUANTITY = new RegExp(String.raw`^\+?(${NUMBER})([KMGTPE]i|[mkMGTPE]|[eE][+-]?\d+)?$`);

/** Multiplier of each suffix. */
const SUFFIX: Record<string, number> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * Largest quantity Kubernetes keeps: 2^63-1 (a larger one is silently capped to it; quantity.go
 * `maxAllowed`), so no request above it means what it says.
 */
export const QUANTITY_MAX = 2 ** 63 - 1;

/** The value of a quantity matching {@link QUANTITY} (`16Gi` → 17179869184). */
function quantityValue(m: RegExpExecArray): number {
  const [, num, suffix] = m as unknown as [string, string, string | undefined];
  if (suffix === undefined) return Number(num);
  const multiplier = SUFFIX[suffix];
  // `E` alone is exa; `E` followed by a number is an exponent (`1E3`).
  return Number(num) * (multiplier ?? 10 ** Number(suffix.slice(1)));
}

/**
 * True when `text` is a valid, non-negative Kubernetes quantity (`500m`, `4`, `16Gi`, `16G`,
 * `1e3`) of at most {@link QUANTITY_MAX}. The exponent of `e` is a whole number, as Kubernetes
 * parses it (`1e3.5` is refused).
 */
export function isQuantity(text: string): boolean {
  const m = QUANTITY.exec(text);
  return m !== null && quantityValue(m) <= QUANTITY_MAX;
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
  const syntax = QUANTITY.exec(text);
  if (syntax && quantityValue(syntax) > QUANTITY_MAX)
    return `"${text}" is above 2^63-1, the largest quantity Kubernetes keeps (it would cap it)`;
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
