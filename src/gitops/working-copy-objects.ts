/**
 * What the working copy (`working-copy.ts`) reads of git objects: file contents through one
 * `git cat-file --batch`, the files and submodules of a commit's tree (`ls-tree`), and the commits
 * ahead of the base branch (`git log`). Git objects never change, so what was read of them is kept
 * (bounded, oldest out): a pass whose heads did not move spawns no git.
 */
import { GitOpsError } from './git-errors.js';
import type { LoggedCommit } from './branch-writes.js';
import type { GitRunner } from './working-copy-git.js';
import type { GitlinkEntry } from './working-copy-options.js';

/** An object name that always means the same content: a full object id, or `<id>:<path>`. */
const IMMUTABLE_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?(?::.*)?$/s;

/** A map of at most `limit` entries; the oldest entry goes first. */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }
}

/** `prefix` as a folder (`a/b/`), `''` for the whole repository. */
const folderOf = (prefix: string): string =>
  prefix === '' ? '' : prefix.endsWith('/') ? prefix : `${prefix}/`;

/** Reads git objects of one clone, remembering what it read. */
export class ObjectReader {
  /** Files under a prefix at a base commit (`sha:prefix`), at most 16. */
  private readonly treeCache = new Map<string, Map<string, string>>();
  /** The contents of `<sha>` and `<commit>:<path>` names (null: missing). */
  private readonly objectCache = new BoundedCache<string, string | null>(16384);
  /** The path → blob listing of a commit's tree. */
  private readonly listingCache = new BoundedCache<string, Map<string, string>>(8);
  /** The gitlinks (submodules) of the same listings. */
  private readonly gitlinkCache = new BoundedCache<string, GitlinkEntry[]>(8);
  /** `git log tips ^base`. */
  private readonly logCache = new BoundedCache<string, LoggedCommit[]>(64);

  constructor(private readonly git: GitRunner) {}

  /**
   * Contents of `<rev>:<path>` names, read through ONE `git cat-file --batch` process; a name that
   * is missing (or not a file) is absent from the result.
   */
  async readObjects(names: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const unique = [...new Set(names)];
    // Names are `<sha>` or `<sha>:<path>` (immutable): an object read before is answered from memory.
    const unread: string[] = [];
    for (const name of unique) {
      const known = this.objectCache.get(name);
      if (known === undefined) unread.push(name);
      else if (known !== null) out.set(name, known);
    }
    if (unread.length === 0) return out;
    const data = await this.git.batch('cat-file', ['cat-file', '--batch'], unread.join('\n') + '\n');
    let at = 0;
    for (const name of unread) {
      const eol = data.indexOf(10, at);
      if (eol < 0) throw new GitOpsError('refused', 'cat-file', `no answer for ${name}`);
      const header = data.toString('utf8', at, eol);
      at = eol + 1;
      const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
      if (!m) {
        // `<name> missing` or `ambiguous`
        if (IMMUTABLE_NAME.test(name)) this.objectCache.set(name, null);
        continue;
      }
      const size = Number(m[2]);
      const text = m[1] === 'blob' ? data.toString('utf8', at, at + size) : null;
      if (text !== null) out.set(name, text);
      if (IMMUTABLE_NAME.test(name)) this.objectCache.set(name, text);
      at += size + 1;
    }
    return out;
  }

  /** Every file under `prefix` at commit `base`, as path → UTF-8 content, sorted by path. */
  async tree(base: string, prefix: string): Promise<Map<string, string>> {
    // Commits never change: a tree read at the same base commit is answered from memory.
    const key = `${base}:${prefix}`;
    const cached = this.treeCache.get(key);
    if (cached) return new Map(cached);
    const listing = await this.listing(base);
    const under = folderOf(prefix);
    const blobs = [...listing].filter(([p]) => p === prefix || p.startsWith(under));
    const sorted = blobs.sort(([a], [b]) => (a < b ? -1 : 1));
    const contents = await this.readObjects(sorted.map(([, sha]) => sha));
    const tree = new Map<string, string>();
    for (const [path, sha] of sorted) {
      const text = contents.get(sha);
      if (text === undefined) throw new GitOpsError('refused', 'cat-file', `blob ${sha} of ${path} not read`);
      tree.set(path, text);
    }
    if (this.treeCache.size >= 16) this.treeCache.delete(this.treeCache.keys().next().value!);
    this.treeCache.set(key, tree);
    return new Map(tree);
  }

  /** The paths of the files under `prefix` at commit `base`, sorted; no content is read. */
  async paths(base: string, prefix: string): Promise<string[]> {
    const under = folderOf(prefix);
    const listing = await this.listing(base);
    return [...listing.keys()].filter((p) => p === prefix || p.startsWith(under)).sort();
  }

  /** The path → blob listing of commit `base` (one `ls-tree` per commit serves every prefix). */
  private async listing(base: string): Promise<Map<string, string>> {
    let listing = this.listingCache.get(base);
    if (!listing) {
      const out = await this.git.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', base]);
      listing = new Map<string, string>();
      const gitlinks: GitlinkEntry[] = [];
      for (const entry of out.split('\0')) {
        const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
        if (m) listing.set(m[2]!, m[1]!);
        // A submodule: a commit of another repository, no content here (see unreadable-specs.ts).
        const g = /^160000 commit ([0-9a-f]+)\t(.*)$/s.exec(entry);
        if (g) gitlinks.push({ path: g[2]!, commit: g[1]! });
      }
      this.listingCache.set(base, listing);
      this.gitlinkCache.set(base, gitlinks);
    }
    return listing;
  }

  /** The submodules (gitlinks, mode 160000) under `prefix` at commit `base`: the listing {@link tree} made, else one `ls-tree`. */
  async gitlinks(base: string, prefix: string): Promise<GitlinkEntry[]> {
    let all = this.gitlinkCache.get(base);
    if (!all) {
      const out = await this.git.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', base]);
      all = [];
      for (const entry of out.split('\0')) {
        const g = /^160000 commit ([0-9a-f]+)\t(.*)$/s.exec(entry);
        if (g) all.push({ path: g[2]!, commit: g[1]! });
      }
      this.gitlinkCache.set(base, all);
    }
    const under = folderOf(prefix);
    return all.filter((g) => g.path === prefix || g.path.startsWith(under));
  }

  /** Commits reachable from `tips` but not from `base`, newest first, with parents (one typed `git log`). */
  async logAhead(base: string, tips: readonly string[]): Promise<LoggedCommit[]> {
    if (tips.length === 0) return [];
    const key = `${base} ${[...new Set(tips)].join(' ')}`;
    const cached = this.logCache.get(key);
    if (cached) return cached;
    try {
      // Revisions as option keys with no value: `git log <tips…> ^<base> --` (simple-git keeps their order).
      const revs = Object.fromEntries([...new Set(tips), `^${base}`, '--'].map((r) => [r, null]));
      const log = await this.git.repo.log<{ sha: string; parents: string; author: string; email: string }>({
        ...revs,
        format: { sha: '%H', parents: '%P', author: '%an', email: '%ae' },
      });
      const logged = log.all.map((c) => ({ ...c, parents: c.parents.split(' ').filter(Boolean) }));
      this.logCache.set(key, logged);
      return logged;
    } catch (err) {
      throw this.git.fail('log', err);
    }
  }
}
