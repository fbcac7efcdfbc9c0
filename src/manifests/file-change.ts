/**
 * One file of a change set: new content, or `null` to delete it. Paths are repo-relative with `/`.
 * The renderers of `manifests/` produce them and `write-back/` writes them (`ChangeSet.files`), so the
 * type sits in the lower layer; `src/change-sets/types.ts` re-exports it.
 */
export interface FileChange {
  path: string;
  content: string | null;
}
