import { boundAt, stringAt } from './cross-field.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

/**
 * The rollout rule a schema cannot say: with `rollout.strategy: RollingUpdate`, `maxSurge` and
 * `maxUnavailable` are not both 0 (the API server refuses such a Deployment: "may not be 0 when
 * `maxSurge` is 0", apps validation `ValidateRollingUpdateDeployment`). The problem is located at
 * the field the document being applied sets (`maxUnavailable` when it sets both or neither).
 * A value the schema already rejects is left out.
 *
 * @param p        the merged policy so far, as parsed
 * @param override the document being applied, or `undefined` for the default policy
 * @param schema   the schema problems already found in `p`
 */
export function rolloutProblems(
  p: unknown,
  override: unknown,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const at = (field: string): PathSegment[] => ['spec', 'rollout', field];
  if (stringAt(p, at('strategy'), schema) !== 'RollingUpdate') return [];
  const surge = boundAt(p, at('maxSurge'), schema);
  const unavailable = boundAt(p, at('maxUnavailable'), schema);
  if (surge?.value !== 0 || unavailable?.value !== 0) return [];
  const setsOnlySurge = sets(override, at('maxSurge')) && !sets(override, at('maxUnavailable'));
  return [
    {
      path: setsOnlySurge ? at('maxSurge') : at('maxUnavailable'),
      at: 'value',
      message:
        'maxSurge and maxUnavailable are both 0: a rolling update could replace no pod (Kubernetes refuses it); give maxSurge 1 (needs a free GPU) or maxUnavailable 1 (a pod down during the rollout)',
    },
  ];
}

/** True when `value` has a field at `path`. */
function sets(value: unknown, path: readonly PathSegment[]): boolean {
  let node = value;
  for (const seg of path) {
    if (node === null || typeof node !== 'object' || !(String(seg) in node)) return false;
    node = (node as Record<string, unknown>)[String(seg)];
  }
  return true;
}
