/**
 * Reporting specs that fail validation: they get no pull request; their errors are logged and
 * posted (once per distinct set of errors) on the open gpuops PRs of that algorithm.
 */
import { createHash } from 'node:crypto';
import type { SpecError } from '../definitions/index.js';
import { branchName, inert } from '../change-sets/index.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import type { GitOpsLogger } from '../change-sets/index.js';

/**
 * The comment listing an algorithm's spec errors; its marker hashes the errors so it posts once.
 * Everything that comes from the spec — file, field and message (which quotes spec values) — is
 * rendered inert ({@link inert}: a code span, control characters escaped, no `<!--`): a spec
 * author cannot mention people, show images or links, or plant a hidden gpuops marker in
 * gpuops's comment.
 */
export function specErrorsComment(subject: string, errors: readonly SpecError[]): string {
  const lines = errors.map(
    (e) =>
      `- ${inert(`${e.file}:${e.line}:${e.column}`)} ${inert(e.field || '(document)')}: ${inert(e.message)}`,
  );
  const hash = createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
  return [
    `The spec of ${inert(subject)} does not validate, so gpuops does not update this pull request until it is fixed:`,
    '',
    ...lines,
    '',
    // The name may be anything a spec typed (it failed validation): encoded, it cannot close the marker.
    `<!-- gpuops:spec-errors=${encodeURIComponent(subject)}:${hash} -->`,
  ].join('\n');
}

/**
 * Logs each invalid algorithm's errors and comments them on its open placement and scaling PRs.
 * With `dryRun` only logs. Returns the PR numbers commented on. A host error on one algorithm is
 * logged and the others go on.
 */
export async function reportInvalidSpecs(
  invalid: readonly { algorithm: string; errors: SpecError[] }[],
  deps: { host: PullRequestHost; cluster: string; base: string; dryRun: boolean; log?: GitOpsLogger },
): Promise<number[]> {
  const commented: number[] = [];
  for (const { algorithm, errors } of invalid) {
    deps.log?.warn({ algorithm, errors }, 'Spec does not validate; no pull request');
    if (deps.dryRun) continue;
    for (const kind of ['placement', 'scale'] as const) {
      try {
        const pr = await deps.host.findPullRequest(branchName(deps.cluster, kind, algorithm), deps.base);
        if (pr?.state !== 'open' || pr.number === null) continue;
        if ((await deps.host.comment(pr.number, specErrorsComment(algorithm, errors))) === 'created') {
          commented.push(pr.number);
        }
      } catch (err) {
        deps.log?.warn(
          { algorithm, kind, err: err instanceof Error ? err.message : String(err) },
          'Could not report spec errors on the pull request',
        );
      }
    }
  }
  return commented;
}
