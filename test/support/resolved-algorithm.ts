import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import type { BenchmarkOutcome } from '../../src/placement/types.js';

/**
 * Algorithm `name` as the spec parser resolves `algorithms/<name>.yaml` (line 1), for plan tests:
 * namespace `algorithms`, image `registry.example.com/ml/<name>:1.0.0`, 1 GPU, 1 to 8 replicas in
 * the band 30–80 %, 3 benchmark runs of at most 1800 s, placement `auto`. `over` replaces whole
 * top-level fields (a `spec` or `scaling` given is the whole of it).
 */
export function resolvedAlgorithm(name: string, over: Partial<ResolvedAlgorithm> = {}): ResolvedAlgorithm {
  return {
    name,
    namespace: 'algorithms',
    spec: { image: `registry.example.com/ml/${name}:1.0.0`, resources: { gpus: 1 } },
    scaling: { minReplicas: 1, maxReplicas: 8, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
    placement: 'auto',
    source: { file: `algorithms/${name}.yaml`, line: 1 },
    ...over,
  };
}

/** A benchmark that succeeded with a median run of `seconds` (message `measured`). */
export function benchmarkOk(seconds: number): BenchmarkOutcome {
  return { status: 'Succeeded', medianSeconds: seconds, message: 'measured' };
}
