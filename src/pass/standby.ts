/**
 * The standby step of a pass's write phase (docs/standby.md, "Claims and Git"): the claims and
 * give-backs the pass's scaling decisions count on (`DesiredState.standby`, `planStandby`: the
 * decisions' `from` counts the claimed pods and Git holds the Deployment's part), carried out through the `StandbyPods` adapter that
 * `compose/` builds. Runtime state only, in pull-request and patch mode alike: nothing here goes
 * to Git. A policy without standby sets sends nothing; a dry run says what it would do.
 */
import type { Logger } from 'pino';
import type { StandbyPods } from '../cluster/index.js';
import type { DesiredState } from '../plan/index.js';

/** What happened to one planned standby pod change, as the pass result shows it. */
export interface StandbyOutcome {
  kind: 'claim' | 'give-back' | 'delete';
  set: string;
  algorithm: string;
  namespace: string;
  pod: string;
  /** Done (false: refused or failed, `message` says why; a dry run is never done). */
  ok: boolean;
  message: string;
}

/** The adapters of the standby step. */
export interface StandbyStepDeps {
  /** Absent: the reconciler was built without one (nothing is sent; a set declared is logged). */
  standby?: StandbyPods;
  dryRun: boolean;
  log: Logger;
}

/**
 * Plans and applies the pass's standby pod changes; each outcome is logged (info when done, warn
 * when refused or failed). Never throws for a pod (the adapter reports each); throws only what
 * the adapter's write fence throws (NotLeadingError: this replica lost the leader Lease).
 */
export async function standbyStep(
  deps: StandbyStepDeps,
  desired: Pick<DesiredState, 'standby'>,
): Promise<StandbyOutcome[]> {
  const actions = desired.standby;
  if (actions.length === 0) return [];
  if (deps.dryRun || !deps.standby) {
    const why = deps.dryRun ? 'dry run' : 'no standby adapter';
    return actions.map((a) => {
      const message = `would ${a.kind} pod ${a.namespace}/${a.pod} for ${a.algorithm} (${why})`;
      deps.log.info({ set: a.set, algorithm: a.algorithm, pod: a.pod, kind: a.kind }, message);
      return {
        kind: a.kind,
        set: a.set,
        algorithm: a.algorithm,
        namespace: a.namespace,
        pod: a.pod,
        ok: false,
        message,
      };
    });
  }
  const results = await deps.standby.apply(actions);
  return actions.map((a, i) => {
    const r = results[i] ?? { ok: false, message: `pod ${a.namespace}/${a.pod}: no result` };
    const fields = { set: a.set, algorithm: a.algorithm, pod: a.pod, kind: a.kind };
    if (r.ok) deps.log.info(fields, r.message);
    else deps.log.warn(fields, r.message);
    return { ...fields, namespace: a.namespace, ok: r.ok, message: r.message };
  });
}

const DONE: Record<StandbyOutcome['kind'], string> = {
  claim: 'claimed',
  'give-back': 'given back',
  delete: 'deleted',
};

/**
 * The lines `gpuops reconcile` prints for a pass's standby changes, one per pod:
 * `claimed    algorithms/<pod> → bert (set llm)`, `given back …`, `deleted …`, or `refused claim …:
 * <why>` (a dry run: `would claim …`). None: no line.
 */
export function formatStandbyOutcomes(outcomes: readonly StandbyOutcome[], dryRun: boolean): string[] {
  if (outcomes.length === 0) return [];
  const out = [dryRun ? 'standby pods (dry run: nothing sent):' : 'standby pods:'];
  for (const o of outcomes) {
    const what = `${o.namespace}/${o.pod} → ${o.algorithm} (set ${o.set})`;
    if (o.ok) out.push(`  ${DONE[o.kind].padEnd(10)} ${what}`);
    else if (dryRun) out.push(`  would ${o.kind} ${what}`);
    else out.push(`  refused ${o.kind} ${what}: ${o.message}`);
  }
  return out;
}

/**
 * The counts of a pass's standby changes for its summary log line (`claimed`, `givenBack`,
 * `deleted` done; `refused` not done, a dry run's included); null when there were none.
 */
export function standbyCounts(
  outcomes: readonly StandbyOutcome[],
): { claimed: number; givenBack: number; deleted: number; refused: number } | null {
  if (outcomes.length === 0) return null;
  const done = (kind: StandbyOutcome['kind']) => outcomes.filter((o) => o.ok && o.kind === kind).length;
  return {
    claimed: done('claim'),
    givenBack: done('give-back'),
    deleted: done('delete'),
    refused: outcomes.filter((o) => !o.ok).length,
  };
}
