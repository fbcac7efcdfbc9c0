/** Test inputs built with the real spec parser and the shipped default policy. */
import {
  loadDefaultPolicy,
  parseAlgorithms,
  type Policy,
  type PolicySpec,
  type ResolvedAlgorithm,
} from '../../src/definitions/index.js';

/** The shipped `policies/default.yaml`, optionally changed by `edit`. */
export async function policyWith(edit: (p: PolicySpec) => void = () => {}): Promise<Policy> {
  const p = structuredClone(await loadDefaultPolicy());
  edit(p.spec);
  return p;
}

/**
 * Parses `algorithms/<file>` text with the real spec parser and returns the resolved algorithms.
 * @throws Error listing the spec errors, so a bad fixture fails loudly
 */
export function algorithmsFromYaml(
  text: string,
  policy: Policy,
  file = 'algorithms/test.yaml',
): ResolvedAlgorithm[] {
  const parsed = parseAlgorithms([{ path: file, text }], policy);
  if (parsed.errors.length > 0) {
    throw new Error(
      `fixture ${file}: ${parsed.errors.map((e) => `${e.line}:${e.column} ${e.field} ${e.message}`).join('; ')}`,
    );
  }
  return parsed.algorithms;
}

/** One Algorithm document. */
export function algorithmYaml(o: {
  name: string;
  image?: string;
  args?: string[];
  gpus?: number;
  runs?: number;
  timeoutSeconds?: number;
  pool?: string;
  extra?: string;
}): string {
  return [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    `  name: ${o.name}`,
    'spec:',
    `  image: ${o.image ?? `registry.example.com/ml/${o.name}:1.0.0`}`,
    '  command: ["python", "run.py"]',
    `  resources: {gpus: ${o.gpus ?? 1}, cpu: "2", memory: 8Gi}`,
    '  benchmark:',
    `    args: ${JSON.stringify(o.args ?? ['--bench'])}`,
    `    runs: ${o.runs ?? 3}`,
    ...(o.timeoutSeconds ? [`    timeoutSeconds: ${o.timeoutSeconds}`] : []),
    ...(o.pool ? ['  placement:', `    pool: ${o.pool}`] : []),
    ...(o.extra ? [o.extra] : []),
    '',
  ].join('\n');
}
