/**
 * Deleted specs (pure): the algorithm folders under `clusters/<cluster>/algorithms/` whose spec
 * left `algorithms/`, and, with `placement.onDeletedSpec: keep-and-report`, what each keeps
 * running. The default (`propose-removal`) deletes the folder in a pull request titled as a
 * removal (`change-sets/removed-objects.ts`); `keep-and-report` leaves it in Git and says so on every
 * pass (plan and reconcile print it, the pass logs it) until a person deletes the folder.
 */
import { removedObjects, describeRemoved, type RemovedObject } from '../change-sets/index.js';
import type { Policy } from '../definitions/index.js';
import type { GitModel } from './git-model.js';

/** One deleted spec whose objects stay (`keep-and-report`). */
export interface KeptRemoval {
  algorithm: string;
  /** The live objects its folder still holds, as a removal would list them. */
  objects: RemovedObject[];
  /** `clusters/<cluster>/algorithms/<name>/`: what a person deletes to remove them. */
  folder: string;
  /** The report line (plan and reconcile print it; the pass logs it). */
  message: string;
}

/** Folder names under `clusters/<cluster>/algorithms/` whose algorithm is neither loaded nor invalid, sorted. */
export function deletedSpecFolders(
  git: Pick<GitModel, 'algorithmFolders'>,
  inGit: Iterable<string>,
): string[] {
  const names = new Set(inGit);
  return git.algorithmFolders.filter((f) => !names.has(f));
}

/** Whether the policy keeps a deleted spec's objects (`keep-and-report`) instead of proposing their removal. */
export function keepsDeletedSpecs(policy: Policy): boolean {
  return policy.spec.placement.onDeletedSpec === 'keep-and-report';
}

/**
 * What each deleted spec keeps under `keep-and-report` (none under `propose-removal`): its
 * folder's live objects with the Deployment's Running pods.
 * @param running Running pods by `namespace/deployment` (`plan/running-replicas.ts`)
 */
export function keptRemovals(input: {
  git: Pick<GitModel, 'cluster' | 'files' | 'algorithmFolders'>;
  inGit: Iterable<string>;
  policy: Policy;
  running: ReadonlyMap<string, number>;
}): KeptRemoval[] {
  if (!keepsDeletedSpecs(input.policy)) return [];
  return deletedSpecFolders(input.git, input.inGit).map((algorithm) => {
    const folder = `clusters/${input.git.cluster}/algorithms/${algorithm}/`;
    const files = [...input.git.files.keys()]
      .filter((p) => p.startsWith(folder))
      .map((path) => ({ path, content: null }));
    const objects = removedObjects(files, input.git.files, input.running);
    const what = objects.length > 0 ? objects.map((o) => describeRemoved(o)).join(', ') : 'no live object';
    return {
      algorithm,
      objects,
      folder,
      message: `algorithm "${algorithm}" is no longer in algorithms/, and its objects stay (placement.onDeletedSpec: keep-and-report): ${what}; delete ${folder} to remove them`,
    };
  });
}
