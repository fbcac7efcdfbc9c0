/**
 * The comment gpuops leaves on a pull request whose branch a person committed to (pure).
 */
import type { ForeignCommit } from './types.js';

/** The comment left on a PR whose branch a person committed to; its marker makes it post once per head. */
export function personCommitsComment(
  branch: string,
  base: string,
  commits: readonly ForeignCommit[],
): string {
  const list = commits.map((c) => `- \`${c.sha.slice(0, 12)}\` by ${c.author} <${c.email}>`).join('\n');
  return [
    `gpuops did not update \`${branch}\`: it holds commits gpuops did not author, and gpuops never force-pushes over a person's work.`,
    '',
    list,
    '',
    `Merge or close this pull request and delete the branch to let gpuops start afresh from \`${base}\`.`,
    '',
    `<!-- gpuops:person-commits=${commits[0]?.sha ?? ''} -->`,
  ].join('\n');
}
