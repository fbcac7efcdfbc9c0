import type { AlgorithmSpec, Policy } from '../types.js';
import { ownedFieldProblems } from './pod-owned.js';
import { podRuleProblems } from './pod-rules.js';
import { podSchemaProblems } from './pod-schema.js';
import { podAcceleratorProblems } from './pod-accelerators.js';
import { podRestrictedProblems } from './pod-restricted.js';
import { podSecurityProblems } from './pod-security.js';
import { unknownPodFields } from './pod-unknown-fields.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True when `prefix` is `path` or lies above it. */
const covers = (prefix: readonly PathSegment[], path: readonly PathSegment[]) =>
  prefix.length <= path.length && prefix.every((seg, i) => path[i] === seg);

/**
 * Every problem of an Algorithm's `spec.template` (a partial `PodTemplateSpec`), beside the
 * Algorithm schema's own (all errors of a file in one round), in this order:
 * 1. fields Kubernetes does not know (`pod-unknown-fields.ts`);
 * 2. the Kubernetes OpenAPI schema, through `kubernetes-models` (`pod-schema.ts`);
 * 3. what the policy's `podSecurity` does not allow (`pod-security.ts`, `pod-restricted.ts`,
 *    `pod-accelerators.ts`);
 * 4. fields gpuops owns (`pod-owned.ts`);
 * 5. the API server's pod rules the schema cannot say (`pod-rules.ts`).
 * One problem per field: the first found wins. Nothing is checked when the Algorithm schema
 * already rejects `spec.template` itself (not a mapping) or a field above it.
 *
 * @param value  the Algorithm document as parsed
 * @param policy the merged policy (namespace default, pool label key, podSecurity)
 * @param schema the Algorithm schema's problems in `value`
 */
export function podTemplateProblems(
  value: unknown,
  policy: Policy,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const doc = isMap(value) ? value : {};
  const spec = isMap(doc['spec']) ? doc['spec'] : {};
  const template = spec['template'];
  const at: PathSegment[] = ['spec', 'template'];
  if (!isMap(template) || schema.some((p) => covers(p.path, at) && p.path.length <= at.length)) return [];
  const meta = isMap(doc['metadata']) ? doc['metadata'] : {};
  const namespace = typeof meta['namespace'] === 'string' ? meta['namespace'] : policy.spec.namespace;
  const resources = isMap(spec['resources']) ? spec['resources'] : {};
  const safeSpec = {
    env: Array.isArray(spec['env']) ? spec['env'].filter(isMap) : [],
    resources: { cpu: resources['cpu'], memory: resources['memory'] },
  } as unknown as AlgorithmSpec;
  const pod = template['spec'];
  const found: FieldProblem[] = [];
  if (isMap(pod)) {
    const base: PathSegment[] = [...at, 'spec'];
    found.push(
      ...unknownPodFields(pod, base, namespace),
      ...podSchemaProblems(pod, base),
      ...podSecurityProblems(pod, base, policy.spec.podSecurity),
      ...podRestrictedProblems(pod, base, policy.spec.podSecurity),
      ...podAcceleratorProblems(pod, base, policy.spec.podSecurity),
    );
  }
  found.push(...ownedFieldProblems(template, safeSpec, policy.spec));
  if (isMap(pod)) found.push(...podRuleProblems(pod, safeSpec));
  const seen = new Set<string>();
  return found.filter((p) => {
    const key = JSON.stringify(p.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
