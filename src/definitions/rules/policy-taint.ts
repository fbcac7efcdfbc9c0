/**
 * The pool taint needs patch mode (pure). In patch mode gpuops sets its own entry of
 * `Node.spec.taints` itself, read-modify-write (`pools/pool-taint.ts`); in pull-request mode the
 * Node files carry labels only, never taints (`manifests/nodes.ts`: `spec.taints` is atomic for
 * server-side apply, so a listed pool taint replaced the taints other managers set), so nothing
 * would set the taint. A policy asking for it there is refused, located in the document that asks:
 * the operator who wants pool nodes kept to matching workloads would otherwise get none, silently.
 */
import type { FieldProblem } from './schema-errors.js';

type Loose = { spec?: { pools?: { taint?: { enabled?: unknown } }; scaling?: { mode?: unknown } } } | null;

/**
 * The problem of a merged policy with `pools.taint.enabled: true` and `scaling.mode: pull-request`;
 * none otherwise (a field of the wrong type is the schema's to report).
 * @param merged   the policy merged so far, this document included (possibly invalid)
 * @param override the document being applied: the problem names the field it sets,
 *                 `spec.pools.taint.enabled` when it sets both or neither
 */
export function poolTaintModeProblems(merged: unknown, override: unknown): FieldProblem[] {
  const spec = (merged as Loose)?.spec;
  if (spec?.pools?.taint?.enabled !== true || spec.scaling?.mode !== 'pull-request') return [];
  const own = (override as Loose)?.spec;
  const atMode = own?.scaling?.mode !== undefined && own.pools?.taint?.enabled === undefined;
  return [
    {
      path: atMode ? ['spec', 'scaling', 'mode'] : ['spec', 'pools', 'taint', 'enabled'],
      at: 'value',
      message:
        'pools.taint.enabled needs scaling.mode: patch: gpuops sets the pool taint on the Node itself ' +
        'in patch mode only; in pull-request mode the Node files carry no taints, so no node would get it ' +
        '(set scaling.mode: patch, or pools.taint.enabled: false)',
    },
  ];
}
