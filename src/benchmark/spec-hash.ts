import { createHash } from 'node:crypto';
import type { AlgorithmSpec } from '../definitions/types.js';

/**
 * The part of an algorithm that changes its run time: the spec's image, command, args, env,
 * resources, benchmark section and GPU product (`spec.gpu`: a run time holds for the product it
 * was measured on), and the Algorithm's `metadata.annotations`, which go onto the
 * benchmark pods (a sidecar opt-out such as `sidecar.istio.io/inject` changes what runs beside
 * the workload; the simulated cluster reads `sim.gpuops.dev/run-seconds` there). Scaling and
 * placement settings are left out, so changing them never triggers a new benchmark.
 */
export type RunTimeInputs = Pick<
  AlgorithmSpec,
  'image' | 'command' | 'args' | 'env' | 'resources' | 'benchmark' | 'gpu'
> & { annotations?: Record<string, string> };

/** JSON with mapping keys sorted at every level and `undefined` dropped: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value as Record<string, unknown>)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * The spec hash that keys benchmark results: sha256 (64 hex characters) over the canonical JSON
 * (sorted keys) of {@link RunTimeInputs}. YAML comments, key order and quoting style do not change
 * it, because it is computed from the parsed object; an absent field and an absent section are
 * the same, and so are absent and empty `annotations` (an Algorithm without annotations keeps the
 * hash it had before annotations were part of it, so its stored benchmark runs still count).
 *
 * @param annotations the Algorithm's `metadata.annotations` (`ResolvedAlgorithm.annotations`).
 */
export function specHash(spec: AlgorithmSpec, annotations?: Readonly<Record<string, string>>): string {
  const inputs: RunTimeInputs = {
    image: spec.image,
    command: spec.command,
    args: spec.args,
    env: spec.env,
    resources: spec.resources,
    benchmark: spec.benchmark,
    gpu: spec.gpu,
    annotations: annotations && Object.keys(annotations).length > 0 ? { ...annotations } : undefined,
  };
  return createHash('sha256').update(canonicalJson(inputs)).digest('hex');
}

/**
 * The spec hash shortened for the `gpuops.dev/spec-hash` label (label values hold at most 63
 * characters): its first 16 hex characters (64 bits).
 */
export function specHashLabel(hash: string): string {
  return hash.slice(0, 16);
}
