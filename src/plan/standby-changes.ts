/**
 * The standby step (pure; docs/standby.md): each standby set of the policy becomes the change set
 * `standby/<set>` (branch `gpuops/<cluster>/standby/<set>`) holding its Deployment's file, rendered
 * by `manifests/standby.ts`, with as many pods as the set's share of the pool's spare:
 * `standbyReplicas(ΣL, β, gpus, max)` of `scaling/rules/claim.ts`, ΣL the sampled load (GPUs) of
 * the algorithms the set serves, as the headroom rule reads each one's (Σ utilisation / 100 × GPUs
 * of a pod, over the pods the scaling step attributed to it). The size grows at once and shrinks
 * only after the scale-down window (`standby-hold.ts`: the policy's own, as the replay's standby
 * fleet holds it), so a load wobbling across a ceil boundary opens no pull request each time.
 *
 * No data is never no load: on a reading that failed or came in part, the set keeps at least the
 * pods Git holds (it may grow, never shrink), as no algorithm scales down on such a reading, and a
 * set Git does not hold yet waits for a whole reading. A file
 * under `clusters/<cluster>/standby/` whose set the policy no longer declares is deleted, but only
 * while no policy file has an error: a broken policy edit (its document left out) never proposes
 * deleting running standbys.
 */
import type { ChangeSetInput, StandbyEvidence } from '../change-sets/index.js';
import { standbyFile, standbyPath, standbyVendor } from '../manifests/index.js';
import { standbyReplicas, standbyHoldSeconds } from '../scaling/index.js';
import type { Policy, ResolvedAlgorithm, StandbySet } from '../definitions/index.js';
import { parseGenerated, type GitModel } from './git-model.js';
import { byString } from '../util/index.js';
import type { DecisionRecord } from '../scaling/index.js';
import { heldStandbySize, pastStandbySizes } from './standby-hold.js';

/** Inputs of {@link standbyChanges}. */
export interface StandbyChangesInput {
  cluster: string;
  policy: Policy;
  git: Pick<GitModel, 'files'>;
  /** Per-pod utilisation (percent) the scaling step attributed to each algorithm, by name. */
  samples: ReadonlyMap<string, readonly { namespace: string; utilization: number }[]>;
  /** The reading was whole: it answered, and not in part. */
  whole: boolean;
  /** A policy file has an error (a document was left out): no standby file is deleted. */
  policyErrors: boolean;
  /** The valid Algorithm specs: whose GPUs a set's standbys ask (`standbyVendor`); absent: NVIDIA. */
  algorithms?: readonly Pick<ResolvedAlgorithm, 'name' | 'namespace' | 'spec'>[];
  /**
   * Shrinking is held for the scale-down window (`standby-hold.ts`, the policy's own on every
   * loop): the pass's time and the stored scaling decisions. Without `now` the size follows this
   * pass alone.
   */
  now?: Date;
  recent?: readonly DecisionRecord[];
  /** How a Git file is parsed (`PlanLookups.parse`: `parseGenerated`, or a reconciler's that keeps it). */
  parse?: (text: string) => unknown;
}

/** The replicas of the standby Deployment in Git at `path`, or null when there is none or it names none. */
function gitReplicas(input: StandbyChangesInput, path: string): number | null {
  const text = input.git.files.get(path);
  if (text === undefined) return null;
  const doc = (input.parse ?? parseGenerated)(text) as { spec?: { replicas?: unknown } } | null;
  const r = doc?.spec?.replicas;
  return typeof r === 'number' && Number.isInteger(r) && r >= 0 ? r : null;
}

/** The size a whole reading keeps (`heldStandbySize`), or `sized` without the pass's time. */
function held(input: StandbyChangesInput, set: StandbySet, from: number | null, sized: number, beta: number) {
  if (!input.now) return sized;
  const { policy } = input;
  const nowMs = input.now.getTime();
  // The policy's own window on every loop, as the replay's standby fleet holds its set.
  const window = standbyHoldSeconds(policy);
  const past = pastStandbySizes(input.recent ?? [], set, beta, policy.spec.scaling.utilization.max);
  return heldStandbySize(from, sized, past, nowMs, window);
}

/** The set's evidence: its load, β, and the pods it keeps (see the module comment). */
export function standbyEvidence(input: StandbyChangesInput, set: StandbySet): StandbyEvidence {
  const sc = input.policy.spec.scaling;
  const beta = set.headroomFactor ?? sc.headroomFactor;
  let load = 0;
  for (const name of set.algorithms)
    for (const s of input.samples.get(name) ?? [])
      if (s.namespace === set.namespace) load += (s.utilization / 100) * set.gpus;
  const from = gitReplicas(input, standbyPath(input.cluster, set));
  const sized = standbyReplicas(load, beta, set.gpus, sc.utilization.max);
  const to = input.whole ? held(input, set, from, sized, beta) : Math.max(sized, from ?? 0);
  return {
    set: set.name,
    pool: set.pool,
    namespace: set.namespace,
    algorithms: [...set.algorithms],
    loadGpus: input.whole ? load : null,
    beta,
    gpus: set.gpus,
    max: sc.utilization.max,
    replicas: { from, to },
  };
}

/**
 * One change set input per declared set (its Deployment's file) and per set file in Git whose set
 * is gone (its deletion, unless `policyErrors`), sorted by set name. `buildChangeSet` drops those
 * whose file Git already holds as planned.
 */
export function standbyChanges(input: StandbyChangesInput): ChangeSetInput[] {
  const { cluster, policy } = input;
  const sets = policy.spec.standby ?? [];
  const out: ChangeSetInput[] = sets.flatMap((set): ChangeSetInput[] => {
    const evidence = standbyEvidence(input, set);
    // A new set waits for a whole reading: no data is no size, not zero.
    if (!input.whole && evidence.replicas.from === null) return [];
    const one: ChangeSetInput = {
      cluster,
      kind: 'standby',
      subject: set.name,
      files: [
        standbyFile(
          cluster,
          set,
          policy.spec,
          evidence.replicas.to,
          standbyVendor(set, input.algorithms ?? []),
        ),
      ],
      current: input.git.files,
      labels: policy.spec.pullRequests.labels,
      standby: evidence,
    };
    return [one];
  });
  if (!input.policyErrors) {
    const declared = new Set(sets.map((s) => standbyPath(cluster, s)));
    const prefix = `clusters/${cluster}/standby/`;
    for (const path of input.git.files.keys()) {
      if (!path.startsWith(prefix) || declared.has(path)) continue;
      const name = path.slice(prefix.length).split('/')[0]!;
      out.push({
        cluster,
        kind: 'standby',
        subject: name,
        files: [{ path, content: null }],
        current: input.git.files,
        labels: policy.spec.pullRequests.labels,
      });
    }
  }
  return out.sort((a, b) => byString(a.subject, b.subject));
}
