/**
 * What the working copy reads of the changes between commits: the files one commit changes from
 * another (`git diff-tree --stdin`, every pair in one process) and the merge base of two commits.
 * It is how gpuops sees what a branch really carries — the pull request's diff — rather than what
 * it meant to write (`branch-owner.ts`). Commits never change: answers are kept (bounded).
 */
import { GitOpsError } from './git-errors.js';
import type { GitRunner } from './working-copy-git.js';
import { BoundedCache } from './working-copy-objects.js';

/** One file a commit changes: its path, how, and its blob in the later commit (null: deleted there). */
export interface TreeChange {
  path: string;
  change: 'create' | 'update' | 'delete';
  blob: string | null;
}

/** A pair to compare: the files `to` changes from `from` (null: from the empty tree, a root commit). */
export interface DiffPair {
  from: string | null;
  to: string;
}

/** The key of a pair in the answer of {@link DiffReader.diffs}. */
export const diffKey = (p: DiffPair): string => `${p.from ?? ''}..${p.to}`;

/**
 * Parses `git diff-tree -r -z --no-renames` output of several commits: a commit id, then
 * `:<modes> <blobs> <status>` and the path, each NUL-terminated. A pair with no change prints
 * nothing at all. Pure.
 */
export function parseDiffTree(out: string): Map<string, TreeChange[]> {
  const byCommit = new Map<string, TreeChange[]>();
  const tokens = out.split('\0');
  let current: TreeChange[] | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.startsWith(':')) {
      const [, , , dst, status] = t.slice(1).split(' ');
      const path = tokens[++i] ?? '';
      const change = status === 'A' ? 'create' : status === 'D' ? 'delete' : 'update';
      current?.push({ path, change, blob: change === 'delete' ? null : (dst ?? null) });
    } else if (/^[0-9a-f]{40,64}$/.test(t.trim())) {
      current = [];
      byCommit.set(t.trim(), current);
    }
  }
  return byCommit;
}

/** Reads diffs and merge bases of one clone, remembering what it read. */
export class DiffReader {
  private readonly cache = new BoundedCache<string, TreeChange[]>(4096);
  private readonly bases = new BoundedCache<string, string | null>(256);

  constructor(private readonly git: GitRunner) {}

  /**
   * The changes of every pair, keyed by {@link diffKey}: one `git diff-tree --stdin` per round of
   * pairs whose `to` differ (git names each answer by its first commit only).
   * @throws GitOpsError when git fails
   */
  async diffs(pairs: readonly DiffPair[]): Promise<Map<string, TreeChange[]>> {
    const out = new Map<string, TreeChange[]>();
    let rest: DiffPair[] = [];
    for (const p of pairs) {
      const known = this.cache.get(diffKey(p));
      if (known) out.set(diffKey(p), known);
      else if (!out.has(diffKey(p))) rest.push(p);
    }
    while (rest.length > 0) {
      const round = new Map<string, DiffPair>();
      const later: DiffPair[] = [];
      for (const p of rest) {
        if (round.has(p.to)) later.push(p);
        else round.set(p.to, p);
      }
      // `<to> <from>` compares `from` (as if its parent) with `to`; `<to>` alone, a root commit, with `--root`.
      const input = [...round.values()].map((p) => (p.from ? `${p.to} ${p.from}` : p.to)).join('\n');
      const args = ['diff-tree', '--stdin', '-r', '-z', '--root', '--no-renames'];
      const parsed = parseDiffTree((await this.git.batch('diff-tree', args, `${input}\n`)).toString('utf8'));
      for (const p of round.values()) {
        const changes = parsed.get(p.to) ?? [];
        this.cache.set(diffKey(p), changes);
        out.set(diffKey(p), changes);
      }
      rest = later;
    }
    return out;
  }

  /** The best common ancestor of `a` and `b` (`git merge-base`), null when they share none. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const key = `${a} ${b}`;
    const known = this.bases.get(key);
    if (known !== undefined) return known;
    const r = await this.git.spawn('merge-base', ['merge-base', a, b], '');
    if (r.code !== 0 && r.code !== 1) {
      throw new GitOpsError('refused', 'merge-base', this.git.redact(r.stderr.trim() || `exit ${r.code}`));
    }
    const base = r.code === 0 ? r.stdout.toString('utf8').trim() : null;
    this.bases.set(key, base);
    return base;
  }
}
