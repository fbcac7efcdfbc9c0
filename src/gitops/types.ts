/** One file of a change set: new content, or `null` to delete it. Paths are repo-relative with `/`. */
export interface FileChange {
  path: string;
  content: string | null;
}

/** Subjects get one branch and one pull request each. */
export type ChangeKind = 'pools' | 'placement' | 'scale';

/**
 * Everything one pull request (or one patch-mode commit) carries. `desiredHash` is a hash of
 * the desired state; it goes into the PR body as a hidden marker so gpuops can tell whether a PR
 * is current.
 */
export interface ChangeSet {
  kind: ChangeKind;
  /** `pools`, or the algorithm name. */
  subject: string;
  /** `gpuops/<cluster>/<kind>/<subject>` (pools: `gpuops/<cluster>/pools`). */
  branch: string;
  title: string;
  /** Markdown, with the evidence tables. */
  body: string;
  files: FileChange[];
  desiredHash: string;
}

/** One `files[]` entry of `plan`. */
export interface PlannedFile {
  path: string;
  change: 'create' | 'update' | 'delete';
}
