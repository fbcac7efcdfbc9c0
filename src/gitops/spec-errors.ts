/**
 * Reporting specs that fail validation: they get no pull request; their errors are logged and
 * posted (once per distinct set of errors) on the open gpuops PRs of that algorithm.
 */
import { createHash } from 'node:crypto';
import type { SpecError } from '../definitions/types.js';
import { escapeControl } from '../util/escape-control.js';
import { branchName } from './branch-name.js';
import type { PullRequestHost } from './pr-host.js';
import type { GitOpsLogger } from './types.js';

/**
 * A Markdown code span of `text` that no backtick inside can close (CommonMark 6.1: a fence
 * longer than any backtick run, padded with a space when the text starts or ends with one).
 */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * The comment listing an algorithm's spec errors; its marker hashes the errors so it posts once.
 * Every error stays on its own line: control characters are escaped ({@link escapeControl}) and
 * the file and field sit in code spans a backtick cannot close.
 */
export function specErrorsComment(subject: string, errors: readonly SpecError[]): string {
  const lines = errors.map(
    (e) =>
      `- ${codeSpan(escapeControl(`${e.file}:${e.line}:${e.column}`))} ${codeSpan(escapeControl(e.field || '(document)'))}: ${escapeControl(e.message)}`,
  );
  const hash = createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
  return [
    `The spec of \`${subject}\` does not validate, so gpuops does not update this pull request until it is fixed:`,
    '',
    ...lines,
    '',
    `<!-- gpuops:spec-errors=${subject}:${hash} -->`,
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
