/**
 * A ValidatingAdmissionPolicy's answer as the API server gives it, computed with a conforming CEL
 * evaluator (`@bufbuild/cel`): its match conditions, then its variables and validations, on the
 * object as JSON (mappings as CEL maps, whole numbers as ints). For the admission policy tables of
 * test/install; the real control plane checks the same files in test/real-cluster.
 */
import { isCelError, run } from '@bufbuild/cel';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;

/** JSON as CEL sees Kubernetes objects: mappings are maps, whole numbers ints. */
export function cel(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cel);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, cel(x)]));
  return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
}

/**
 * The policy `vap`'s answer to a CREATE of `object` by `username`: `allowed`, `not judged` (a match
 * condition is false), or the first refusal's message.
 * @throws when an expression does not evaluate (a CEL error names it)
 */
export function admit(
  vap: AnyObj,
  object: AnyObj,
  username = 'system:serviceaccount:flux-system:gpuops-applier',
): string {
  const variables = new Map<string, unknown>();
  const request = cel({ operation: 'CREATE', userInfo: { username } });
  const evaluate = (expression: string) => {
    const r = run(expression, { object: cel(object), variables, request } as never);
    if (isCelError(r))
      throw new Error(`CEL: ${String((r as { message?: string }).message ?? r)}: ${expression}`);
    return r;
  };
  for (const m of vap.spec.matchConditions ?? []) if (evaluate(m.expression) !== true) return 'not judged';
  for (const v of vap.spec.variables ?? []) variables.set(v.name, evaluate(v.expression));
  for (const v of vap.spec.validations)
    if (evaluate(v.expression) !== true)
      return v.messageExpression ? String(evaluate(v.messageExpression)) : String(v.message).trim();
  return 'allowed';
}
