import { POD_FIELDS } from '../schema/pod-fields.generated.js';
import { didYouMean } from './did-you-mean.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

/**
 * Reference types that name a Secret or a ConfigMap of the pod's own namespace: they have no
 * `namespace` field, and a pod can read no other namespace's (https://kubernetes.io/docs/concepts/configuration/secret/#restrictions).
 */
const SAME_NAMESPACE_REFS = new Set([
  'V1SecretEnvSource',
  'V1SecretKeySelector',
  'V1SecretVolumeSource',
  'V1SecretProjection',
  'V1ConfigMapEnvSource',
  'V1ConfigMapKeySelector',
  'V1ConfigMapVolumeSource',
  'V1ConfigMapProjection',
  'V1LocalObjectReference',
]);

/** `Array<V1Volume>` → `['array', 'V1Volume']`, `{ [key: string]: string; }` → `['map', 'string']`. */
function container(type: string): ['array' | 'map', string] | undefined {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return ['array', array[1]!];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  return map ? ['map', map[1]!] : undefined;
}

/**
 * Fields of a partial `PodSpec` that Kubernetes does not know, as the API server's strict field
 * validation finds them (`fieldValidation=Strict`, what kubectl sends): each is a problem at its
 * key with a "did you mean" when a known field is close. A `namespace` on a Secret or ConfigMap
 * reference says that a pod reads only its own namespace's. Values of the wrong type are left to
 * the schema check (`pod-schema.ts`).
 *
 * @param spec      the value of `spec.template.spec`
 * @param base      its path in the document (`['spec', 'template', 'spec']`)
 * @param namespace the namespace the algorithm runs in, for the message
 */
export function unknownPodFields(
  spec: unknown,
  base: readonly PathSegment[],
  namespace: string,
): FieldProblem[] {
  const out: FieldProblem[] = [];
  const walk = (type: string, value: unknown, path: PathSegment[]): void => {
    if (value === null || typeof value !== 'object') return;
    const inner = container(type);
    if (inner) {
      if (inner[0] === 'array' && Array.isArray(value))
        value.forEach((v, i) => walk(inner[1], v, [...path, i]));
      if (inner[0] === 'map' && !Array.isArray(value))
        for (const [k, v] of Object.entries(value)) walk(inner[1], v, [...path, k]);
      return;
    }
    const fields = POD_FIELDS[type];
    if (!fields || Array.isArray(value)) return;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const field = fields[key];
      if (field !== undefined) {
        walk(field, v, [...path, key]);
        continue;
      }
      out.push({
        path: [...path, key],
        at: 'key',
        message: unknownMessage(type, key, Object.keys(fields), namespace),
        keyword: 'additionalProperties',
      });
    }
  };
  walk('V1PodSpec', spec, [...base]);
  return out;
}

function unknownMessage(type: string, key: string, known: string[], namespace: string): string {
  if (key === 'namespace' && SAME_NAMESPACE_REFS.has(type)) {
    return `unknown field "namespace": a pod reads Secrets and ConfigMaps of its own namespace only ("${namespace}"); put the Secret there`;
  }
  const guess = didYouMean(key, known);
  const hint = guess !== undefined ? `; did you mean "${guess}"?` : `; known fields: ${known.join(', ')}`;
  return `unknown field "${key}" of a Kubernetes ${type.replace(/^V1/, '')}${hint}`;
}
