/**
 * When a pass reads a Deployment to hand its `spec.replicas` over to Git's applier
 * (`field-handover.ts`). The snapshot holds no Deployment, so each check is one GET; with passes
 * every few seconds on a crossing (the watch trigger) and 500 algorithms, reading every one each
 * pass was 500 GETs a pass. Instead a Deployment is read when this reconciler has not read it yet,
 * when its last read is {@link HANDOVER_RECHECK_MS} old, when its last hand-over failed (next
 * pass), or every pass while gpuops's own scale patch of it is younger than that (Argo CD syncs the
 * scale commit, and so owns `replicas` too, within its poll of 3 min by default), at most
 * {@link HANDOVER_CHECKS_PER_PASS} a pass, those waiting longest first. Pure: the reads are the
 * caller's.
 */
import type { GitModel, ReconcilerMemory } from '../plan/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { bindsScaleRole, namespaceFilePath } from '../manifests/index.js';

/**
 * How long a Deployment's read for the hand-over stands, milliseconds (5 min). A shared
 * `spec.replicas` arises when Flux or Argo CD applies the file (Flux's `interval` in gpuops's
 * template is 1 min, Argo CD polls Git every 3 min), and matters only at a person's later removal
 * of `replicas` from Git; 5 min keeps that hand-over within minutes at one GET per Deployment per 5 min.
 */
export const HANDOVER_RECHECK_MS = 5 * 60_000;

/** Reads for the hand-over at most per pass; the rest wait for the next pass, oldest first. */
export const HANDOVER_CHECKS_PER_PASS = 100;

/** Reads for the hand-over in flight at once. */
export const HANDOVER_CHECKS_IN_FLIGHT = 8;

/** The reconciler's record of hand-over reads by `namespace/name` ({@link ReconcilerMemory.deploymentChecks}). */
export type DeploymentChecks = NonNullable<ReconcilerMemory['deploymentChecks']>;

/** A Deployment to hand over, by namespace and name. */
export interface DeploymentRef {
  namespace: string;
  name: string;
}

/** The key of `d` in {@link DeploymentChecks}. */
export const checkKey = (d: DeploymentRef): string => `${d.namespace}/${d.name}`;

/**
 * The Deployments of `deployments` to read this pass (see the module comment), in the order: those
 * gpuops scaled within {@link HANDOVER_RECHECK_MS}, those never read (or failed: not noted), then
 * the rest by their last read, oldest first; at most `cap`. Notes the scaled ones (`scaled`:
 * `namespace/name` keys) at `nowMs` and forgets the entries of Deployments no longer given.
 */
export function deploymentsDue<D extends DeploymentRef>(
  deployments: readonly D[],
  checks: DeploymentChecks,
  nowMs: number,
  scaled: ReadonlySet<string> = new Set(),
  cap = HANDOVER_CHECKS_PER_PASS,
): D[] {
  const given = new Set(deployments.map(checkKey));
  for (const key of [...checks.keys()]) if (!given.has(key)) checks.delete(key);
  for (const key of scaled) if (given.has(key)) checks.set(key, { ...checks.get(key), scaledAtMs: nowMs });
  const due: { d: D; rank: number }[] = [];
  for (const d of deployments) {
    const c = checks.get(checkKey(d));
    if (c?.scaledAtMs !== undefined && nowMs - c.scaledAtMs < HANDOVER_RECHECK_MS)
      due.push({ d, rank: -Infinity });
    else if (c?.checkedAtMs === undefined) due.push({ d, rank: -Number.MAX_VALUE });
    else if (nowMs - c.checkedAtMs >= HANDOVER_RECHECK_MS) due.push({ d, rank: c.checkedAtMs });
  }
  // Array.prototype.sort is stable: equal ranks keep the order given.
  return due
    .sort((a, b) => (a.rank === b.rank ? 0 : a.rank < b.rank ? -1 : 1))
    .slice(0, cap)
    .map((x) => x.d);
}

/**
 * Notes a read of `d` at `nowMs` that succeeded (`ok`); one that handed the field over (`changed`)
 * also ends the every-pass reads its scale started (nothing is shared any more). A failed read is
 * not noted, so the next pass reads it again.
 */
export function noteChecked(
  checks: DeploymentChecks,
  d: DeploymentRef,
  nowMs: number,
  result: { ok: boolean; changed: boolean },
): void {
  if (!result.ok) return;
  const key = checkKey(d);
  const scaledAtMs = result.changed ? undefined : checks.get(key)?.scaledAtMs;
  checks.set(key, scaledAtMs === undefined ? { checkedAtMs: nowMs } : { checkedAtMs: nowMs, scaledAtMs });
}

/**
 * The algorithms' Deployments Git holds (the ones whose replicas patch mode writes) in namespaces
 * whose file in Git binds `gpuops-scale` (`bindsScaleRole`): only there may gpuops read and patch
 * them. Patch mode renders the binding; after a switch to pull-request mode it goes with the
 * pools pull request, and until that is merged the hand-over still runs. So no pass asks for
 * what the install does not grant (a 403 each pass). Each namespace's file is asked about once a
 * call, i.e. once a pass, however many algorithms share the namespace (issue 42: asking once per
 * algorithm was about half of a 10,000-node steady pass); bindsScaleRole keeps its answer by
 * the file's text, so an unchanged file is not parsed again next pass.
 * @returns the Deployments in the order of `algorithms`
 */
export function deploymentsToHandOver(o: {
  algorithms: readonly Pick<ResolvedAlgorithm, 'name' | 'namespace'>[];
  git: Pick<GitModel, 'cluster' | 'files' | 'deployments'>;
}): DeploymentRef[] {
  const binds = new Map<string, boolean>();
  const granted = (namespace: string): boolean => {
    let b = binds.get(namespace);
    if (b === undefined) {
      b = bindsScaleRole(o.git.files.get(namespaceFilePath(o.git.cluster, namespace)));
      binds.set(namespace, b);
    }
    return b;
  };
  return o.algorithms
    .filter((a) => o.git.deployments.has(a.name) && granted(a.namespace))
    .map((a) => ({ namespace: a.namespace, name: a.name }));
}
