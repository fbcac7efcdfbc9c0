/**
 * The write fence of `gpuops run`: leadership is checked right before every write — a push, a
 * pull-request call, a cluster patch, a benchmark Job — not only when a pass starts. A leader
 * frozen mid-pass (a long GC pause, a stopped container) is replaced once its Lease expires; when
 * it wakes, its own clock says its last renewal is older than the renew deadline
 * (`LeaderElector.isLeader`), so the next write it tries is refused and its pass ends, instead of
 * a second writer beside the new leader. client-go's leader election leaves this to the caller
 * ("there is no fencing"); this is that check. The fence narrows the window to the write's own
 * duration: a process frozen between the check and the write's first byte is not covered.
 */
import type { JobApi, ClusterPatcher, PatchResult } from '../cluster/index.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import type { WriteFence } from '../pass/index.js';

/** Thrown by a fence when this replica may not write now. */
export class NotLeadingError extends Error {
  override readonly name = 'NotLeadingError';
  constructor(
    /** The write refused (`push`, `pull request`, `patch Deployment ns/name`, …). */
    readonly write: string,
    identity: string,
  ) {
    super(
      `${write} refused: ${identity} does not hold the leader Lease (lost or expired; another replica may lead)`,
    );
  }
}

/** A fence bound later to the replica's leader election (the reconciler is built before it). */
export interface LeaderFence {
  check: WriteFence;
  /** From now on `check` asks `isLeader` (`LeaderElector.isLeader`); before, it refuses every write. */
  bind(isLeader: () => boolean, identity: string): void;
}

/** A {@link LeaderFence} that refuses until bound. */
export function createLeaderFence(): LeaderFence {
  let leading: () => boolean = () => false;
  let who = 'this replica';
  return {
    check(write) {
      if (!leading()) throw new NotLeadingError(write, who);
    },
    bind(isLeader, identity) {
      leading = isLeader;
      who = identity;
    },
  };
}

/** The pull-request host with `fence` checked before each call that writes (reads go straight through). */
export function fencedHost(host: PullRequestHost, fence: WriteFence): PullRequestHost {
  return {
    name: host.name,
    recordsPullRequests: host.recordsPullRequests,
    ...(host.refresh ? { refresh: () => host.refresh!() } : {}),
    findPullRequest: (head, base) => host.findPullRequest(head, base),
    listOpen: () => host.listOpen(),
    ensurePullRequest: async (cs, found) => {
      fence(`pull request of ${cs.branch}`);
      return host.ensurePullRequest(cs, found);
    },
    comment: async (n, body) => {
      fence(`comment on pull request #${n}`);
      return host.comment(n, body);
    },
    ...(host.closeSuperseded
      ? {
          closeSuperseded: async (head: string, note: string) => {
            fence(`close of the pull request of ${head}`);
            return host.closeSuperseded!(head, note);
          },
        }
      : {}),
  };
}

function refused(
  kind: PatchResult['kind'],
  namespace: string | null,
  name: string,
  err: unknown,
): PatchResult {
  const message = err instanceof Error ? err.message : String(err);
  return { kind, namespace, name, ok: false, changed: false, attempts: 0, code: null, message };
}

/** The patcher with `fence` checked before each object; a refusal is a failed result (it never throws). */
export function fencedPatcher(patcher: ClusterPatcher, fence: WriteFence): ClusterPatcher {
  return {
    async scaleDeployment(namespace, name, replicas) {
      try {
        fence(`scale of Deployment ${namespace}/${name}`);
      } catch (err) {
        return refused('Deployment', namespace, name, err);
      }
      return patcher.scaleDeployment(namespace, name, replicas);
    },
    async labelNodes(changes) {
      try {
        fence(`labels of ${changes.length} Node(s)`);
      } catch (err) {
        return changes.map((c) => refused('Node', null, c.node, err));
      }
      return patcher.labelNodes(changes);
    },
    async setNodeTaint(change) {
      try {
        fence(`taint of Node ${change.node}`);
      } catch (err) {
        return refused('Node', null, change.node, err);
      }
      return patcher.setNodeTaint(change);
    },
    async releaseToGit(node) {
      try {
        fence(`field ownership of Node ${node}`);
      } catch (err) {
        return refused('Node', null, node, err);
      }
      return patcher.releaseToGit(node);
    },
    async releaseDeploymentToGit(namespace, name) {
      try {
        fence(`field ownership of Deployment ${namespace}/${name}`);
      } catch (err) {
        return refused('Deployment', namespace, name, err);
      }
      return patcher.releaseDeploymentToGit(namespace, name);
    },
  };
}

/** The benchmark Job adapter with `fence` checked before it creates or deletes a Job. */
export function fencedJobs(jobs: JobApi, fence: WriteFence): JobApi {
  return {
    ...jobs,
    createJob: async (job) => {
      fence(`benchmark Job ${job.metadata.namespace}/${job.metadata.name}`);
      return jobs.createJob(job);
    },
    deleteJob: async (namespace, name) => {
      fence(`delete of benchmark Job ${namespace}/${name}`);
      return jobs.deleteJob(namespace, name);
    },
  };
}
