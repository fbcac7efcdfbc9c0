/**
 * What gpuops says about a branch of its own that holds a person's commits (pure): the comment it
 * leaves on the pull request, and the section its body then carries. Both list the commits gpuops
 * did not push and every file of the pull request's diff (`branch-owner.ts`), marked gpuops's or a
 * person's, and the access objects (Namespaces, bindings) the person's files create: nothing on
 * the branch is kept or dropped without a word. Everything taken from Git (author, path, object
 * names) is rendered inert (`inert`): a commit's author cannot mention, link or plant a marker.
 */
import { hashMarker, stripHashMarker } from './pr-body.js';
import { count, inert, inertCell } from './pr-text.js';
import type { ForeignCommit, PersonChanges } from './types.js';

/** Rows shown per table: the comment stays within GitHub's 65,536 characters. */
const MAX_ROWS = 200;

function inertTable(header: readonly string[], rows: readonly string[][], what: string): string[] {
  const shown = rows.slice(0, MAX_ROWS);
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => ' --- ').join('|')}|`,
    ...shown.map((r) => `| ${r.join(' | ')} |`),
    ...(rows.length > shown.length ? ['', `… and ${count(rows.length - shown.length)} more ${what}`] : []),
  ];
}

/**
 * The section listing a person's commits and what the branch's diff carries: the commits (author
 * as the commit states it), every file (`person`: not what gpuops writes there), the access
 * objects in the person's files. `changes` absent: the diff could not be read; said so.
 */
export function personChangesSection(commits: readonly ForeignCommit[], changes?: PersonChanges): string {
  const out = [
    `### Commits gpuops did not push`,
    '',
    `gpuops leaves this branch as it is: it holds ${count(commits.length)} commit(s) gpuops did not push (an author name or e-mail proves nothing), and gpuops never force-pushes over them.`,
    '',
    ...inertTable(
      ['commit', 'author (as the commit states it)'],
      commits.map((c) => [inertCell(c.sha.slice(0, 12)), inertCell(`${c.author} <${c.email}>`)]),
      'commits',
    ),
    '',
  ];
  if (!changes)
    return [...out, 'The files of this branch could not be read: review its diff itself.'].join('\n');
  const theirs = changes.files.filter((f) => f.writtenBy === 'person').length;
  out.push(
    `**Every file this pull request changes** (from its diff): ${count(theirs)} of ${count(changes.files.length)} not what gpuops writes.`,
    '',
    ...inertTable(
      ['file', 'change', 'written by'],
      changes.files.map((f) => [
        inertCell(f.path),
        f.change,
        f.writtenBy === 'person' ? '**a person**' : 'gpuops',
      ]),
      'files',
    ),
  );
  if (changes.grants.length > 0)
    out.push(
      '',
      `**Access objects in files gpuops did not write**: merging lets Argo CD or Flux apply them.`,
      '',
      ...inertTable(
        ['change', 'kind', 'name', 'namespace', 'role', 'subjects'],
        changes.grants.map((g) => [
          g.action,
          g.kind,
          inertCell(g.name),
          g.namespace === null ? '—' : inertCell(g.namespace),
          g.role === null ? '—' : inertCell(g.role),
          inertCell(g.subjects.join(', ')),
        ]),
        'objects',
      ),
    );
  return out.join('\n');
}

/** The comment left on a PR whose branch a person committed to; its marker makes it post once per head. */
export function personCommitsComment(
  branch: string,
  base: string,
  commits: readonly ForeignCommit[],
  changes?: PersonChanges,
): string {
  return [
    `gpuops did not update ${inert(branch)}.`,
    '',
    personChangesSection(commits, changes),
    '',
    `Merge or close this pull request and delete the branch to let gpuops start afresh from ${inert(base)}.`,
    '',
    `<!-- gpuops:person-commits=${commits[0]?.sha ?? ''} -->`,
  ].join('\n');
}

/** A pull-request body with the person's section after gpuops's text, the desired-hash marker kept last. */
export function withPersonChanges(body: string, section: string, desiredHash: string): string {
  return `${stripHashMarker(body)}\n\n${section}\n\n${hashMarker(desiredHash)}\n`;
}
