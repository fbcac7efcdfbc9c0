import { createHash } from 'node:crypto';
import type { AlgorithmSpec, PodTemplate } from '../definitions/index.js';

/**
 * The part of an algorithm that changes its run time: the spec's image, command, args, env,
 * resources, benchmark section and GPU product (`spec.gpu`: a run time holds for the product it
 * was measured on), the pod's shape (`spec.template` as the benchmark Job's pod gets it, its
 * container's probes left out: a volume, `/dev/shm`, an init container or a security context can
 * change what is measured), and the Algorithm's `metadata.annotations`, which go onto
 * the benchmark pods (a sidecar opt-out such as `sidecar.istio.io/inject` changes what runs beside
 * the workload; the simulated cluster reads `sim.gpuops.dev/run-seconds` there). Scaling and
 * placement settings, and the probes (the Job's pod has none), are left out, so changing them
 * never triggers a new benchmark.
 */
export type RunTimeInputs = Pick<
  AlgorithmSpec,
  'image' | 'command' | 'args' | 'env' | 'resources' | 'benchmark' | 'gpu' | 'template'
> & { annotations?: Record<string, string> };

/** Probes of the algorithm's container, which the benchmark Job's pod leaves out (`pod-template.ts`). */
const PROBES = ['readinessProbe', 'livenessProbe', 'startupProbe'];

/**
 * `spec.template` without the probes of its container (`containers[0]`, the only one allowed),
 * and without what is left empty by that: a template of probes only is no template, so adding or
 * changing probes never changes the hash.
 */
function measuredTemplate(template: PodTemplate | undefined): PodTemplate | undefined {
  const containers = template?.spec?.['containers'];
  if (!template?.spec || !Array.isArray(containers) || containers.length === 0) return template;
  const first = Object.fromEntries(
    Object.entries(containers[0] as Record<string, unknown>).filter(([k]) => !PROBES.includes(k)),
  );
  const spec: Record<string, unknown> = { ...template.spec, containers: [first, ...containers.slice(1)] };
  if (Object.keys(first).length === 0 && containers.length === 1) delete spec['containers'];
  const out: PodTemplate = { ...template, spec };
  if (Object.keys(spec).length === 0) delete out.spec;
  return Object.keys(out).length === 0 ? undefined : out;
}

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
    benchmark: measuredBenchmark(spec.benchmark),
    gpu: spec.gpu,
    template: measuredTemplate(spec.template),
    annotations: annotations && Object.keys(annotations).length > 0 ? { ...annotations } : undefined,
  };
  return createHash('sha256').update(canonicalJson(inputs)).digest('hex');
}

/**
 * The benchmark section without `queueName`: which queue admits the Job changes when it runs, not
 * what it measures, so naming a queue keeps the stored runs.
 */
function measuredBenchmark(b: AlgorithmSpec['benchmark']): AlgorithmSpec['benchmark'] {
  if (!b || b.queueName === undefined) return b;
  const { queueName: _queue, ...rest } = b;
  return rest;
}

/**
 * The spec hash shortened for the `gpuops.dev/spec-hash` label (label values hold at most 63
 * characters): its first 16 hex characters (64 bits).
 */
export function specHashLabel(hash: string): string {
  return hash.slice(0, 16);
}
