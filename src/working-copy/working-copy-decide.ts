/**
 * What one attempt of `WorkingCopy.applyAll` reads before it decides, in pull-request mode
 * (`working-copy-apply.ts` calls it): the commits ahead of the base, which of them gpuops knows
 * (the ledger, then the base's content: `branch-owner.ts`), the files at the base and the heads,
 * each branch's diff from the base; then the decision (`branch-writes.ts`, pure), and for a branch
 * that holds a person's commits, everything its diff carries.
 */
import { branchFileList, containedInBase, recordedClosure } from './branch-owner.js';
import { branchWrites, type ApplyItem, type DecidedWrites } from './branch-writes.js';
import type { CommitLedger } from './commit-ledger.js';
import { createdObjects } from '../change-sets/index.js';
import type { ApplyOutcome, ChangeSet, LoggedCommit, PersonChanges } from '../change-sets/index.js';
import { diffKey, type DiffReader } from './working-copy-diffs.js';
import type { ObjectReader } from './working-copy-objects.js';

/** What deciding reads through. */
export interface DecideContext {
  objects: ObjectReader;
  diffs: DiffReader;
  ledger: CommitLedger;
}

/**
 * Reads what {@link branchWrites} decides on and decides; each `person-commits` outcome gets the
 * branch's {@link PersonChanges}. @throws GitOpsError when git fails, or what the ledger throws
 */
export async function decideBranchWrites(
  wc: DecideContext,
  items: readonly ApplyItem[],
  pending: readonly number[],
  heads: ReadonlyMap<string, string>,
  base: string,
): Promise<DecidedWrites> {
  const remoteOf = (i: number) => heads.get(items[i]!.changeSet.branch);
  const tips = [...new Set(pending.map(remoteOf).filter((s): s is string => s !== undefined))];
  const logged = await wc.objects.logAhead(base, tips);
  const { known, pushed } = await knownCommits(wc, logged, base);
  const names = pending.flatMap((i) => {
    const remote = remoteOf(i);
    return items[i]!.changeSet.files.flatMap((f) => [
      `${base}:${f.path}`,
      ...(remote ? [`${remote}:${f.path}`] : []),
    ]);
  });
  const contents = await wc.objects.readObjects(names);
  const pairs = tips.map((to) => ({ from: base, to }));
  const read = await wc.diffs.diffs(pairs);
  const diffs = new Map(pairs.map((p) => [p.to, read.get(diffKey(p)) ?? []]));
  const decided = branchWrites(items, pending, { base, heads, logged, contents, known, pushed, diffs });
  for (const [i, r] of decided.done) {
    if (r instanceof Error || r.status !== 'person-commits') continue;
    const head = remoteOf(i);
    if (head) (r as ApplyOutcome).personChanges = await personChanges(wc, items[i]!.changeSet, base, head);
  }
  return decided;
}

/**
 * The commits of `logged` gpuops pushed (the ledger), and those it knows: pushed or built on, or
 * held by the base by content (their diff from their first parent, read only for the rest: one
 * `diff-tree`).
 */
async function knownCommits(
  wc: DecideContext,
  logged: readonly LoggedCommit[],
  base: string,
): Promise<{ known: Set<string>; pushed: Set<string> }> {
  if (logged.length === 0) return { known: new Set(), pushed: new Set() };
  const pushed = await wc.ledger.known(logged.map((c) => c.sha));
  const known = recordedClosure(logged, pushed);
  const rest = logged.filter((c) => !known.has(c.sha));
  if (rest.length === 0) return { known, pushed };
  const pairs = rest.map((c) => ({ from: c.parents[0] ?? null, to: c.sha }));
  const [changes, baseFiles] = await Promise.all([wc.diffs.diffs(pairs), wc.objects.entries(base)]);
  pairs.forEach((p) => {
    if (containedInBase(changes.get(diffKey(p)) ?? [], baseFiles)) known.add(p.to);
  });
  return { known, pushed };
}

/**
 * Everything a branch holding a person's commits carries, from the pull request's diff (merge
 * base → head, as the host shows it): every file, marked gpuops's or a person's, and the access
 * objects the person's files create or change.
 */
async function personChanges(
  wc: DecideContext,
  cs: ChangeSet,
  base: string,
  head: string,
): Promise<PersonChanges> {
  const from = (await wc.diffs.mergeBase(base, head)) ?? base;
  const pair = { from, to: head };
  const diff = (await wc.diffs.diffs([pair])).get(diffKey(pair)) ?? [];
  const texts = await wc.objects.readObjects(
    diff.flatMap((c) => [`${from}:${c.path}`, ...(c.blob ? [`${head}:${c.path}`] : [])]),
  );
  const files = branchFileList(diff, cs, (p) => texts.get(`${head}:${p}`));
  const theirs = files
    .filter((f) => f.writtenBy === 'person' && f.change !== 'delete')
    .map((f) => ({ path: f.path, content: texts.get(`${head}:${f.path}`) ?? '' }));
  const before = new Map(
    diff.flatMap((c) => {
      const t = texts.get(`${from}:${c.path}`);
      return t === undefined ? [] : [[c.path, t] as const];
    }),
  );
  return { files, grants: createdObjects(theirs, before) };
}
