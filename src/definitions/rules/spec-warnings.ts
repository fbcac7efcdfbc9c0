/**
 * Values the schema takes but that are most likely not what their author meant (pure): each is a
 * warning, located at the field, never a refusal (the value is valid, and gpuops acts on it as
 * written). `gpuops validate` and `gpuops plan` print them beside the errors; they change no exit
 * code.
 *
 * - A utilisation band written as a ratio (`min: 0.3`) where the schema means percent, 0..100
 *   (docs/spec-reference.md, policies/default.yaml): 0.3 is read as 0.3 %, so the algorithm would
 *   almost never scale down. DCGM's `DCGM_FI_PROF_GR_ENGINE_ACTIVE` is a ratio 0..1, which is how
 *   such a value gets written; gpuops reads every GPU signal as percent.
 * - `pools.test.size: 0` without `perGPUProduct` (docs/policy-reference.md, "The test pool"): no
 *   test pool, so an algorithm without `spec.gpu.product` is never benchmarked and never placed.
 */
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The mapping at `path` of `value`, or undefined. */
function mapAt(value: unknown, path: readonly string[]): Obj | undefined {
  let node = value;
  for (const seg of path) node = isMap(node) ? node[seg] : undefined;
  return isMap(node) ? node : undefined;
}

const asNumber = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/**
 * Warnings for a utilisation band (percent, 0..100) that reads as a ratio 0..1: the band is
 * ratio-like when its whole range is at most 1 (`max ≤ 1`, e.g. `{min: 0.3, max: 0.8}`) or a bound
 * this document sets is a fraction strictly between 0 and 1 (`min: 0.3` beside the policy's
 * `max: 80`). Then each bound this document sets in (0, 1] is warned at, with its percent
 * reading. A whole-number bound ≥ 1 beside a max > 1 (`min: 1`, `max: 80`) is a percent as written.
 *
 * @param document the document as parsed (its own bounds are the ones warned at)
 * @param at       the band's path in it, e.g. `['spec', 'scaling', 'utilization']`
 * @param merged   the band in effect after this document (its bounds, else the policy's), percent
 */
export function ratioBandWarnings(
  document: unknown,
  at: readonly string[],
  merged: { min: number; max: number },
): FieldProblem[] {
  const band = mapAt(document, at);
  if (!band) return [];
  const own = (['min', 'max'] as const).flatMap((k) => {
    const v = asNumber(band[k]);
    return v === undefined ? [] : [{ key: k, value: v }];
  });
  const fraction = own.some((b) => b.value > 0 && b.value < 1);
  if (!fraction && !(merged.max <= 1)) return [];
  return own
    .filter((b) => b.value > 0 && b.value <= 1)
    .map((b) => ({
      path: [...at, b.key] as PathSegment[],
      at: 'value' as const,
      message: `${b.value} reads as a ratio, but the band is percent, 0-100: ${b.value} means ${b.value} %, so the algorithm ${b.key === 'min' ? 'would scale down only when almost idle' : 'would scale up at almost any load'}; for ${+(b.value * 100).toFixed(4)} % write ${+(b.value * 100).toFixed(4)}`,
    }));
}

/**
 * The warning for a policy document that sets `spec.pools.test.size: 0` while the merged policy
 * does not take one test node per product (`perGPUProduct`): the test pool is empty, so only an
 * algorithm naming `spec.gpu.product` gets a test node (`pools/product-test-nodes.ts`); every other
 * one waits for a benchmark and is never placed. Valid (a fleet whose specs all name a product, or
 * one that pauses benchmarks), hence a warning.
 *
 * @param document the policy document as parsed
 * @param merged   the merged policy after it
 */
export function emptyTestPoolWarnings(document: unknown, merged: unknown): FieldProblem[] {
  const size = mapAt(document, ['spec', 'pools', 'test'])?.['size'];
  if (size !== 0) return [];
  if (mapAt(merged, ['spec', 'pools', 'test'])?.['perGPUProduct'] === true) return [];
  return [
    {
      path: ['spec', 'pools', 'test', 'size'],
      at: 'value',
      message:
        'no test pool: an algorithm without spec.gpu.product is never benchmarked, so it is never placed (set 1 or more, or perGPUProduct: true for one test node per GPU product)',
    },
  ];
}
