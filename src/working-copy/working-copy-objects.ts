/**
 * What the working copy (`working-copy.ts`) reads of git objects: file contents through one
 * `git cat-file --batch`, the files (with the sizes git reports) and submodules of a commit's tree
 * (`ls-tree -l`), and the commits ahead of the base branch (`git log`). Git objects never change,
 * so what was read of them is kept (bounded, oldest out): a pass whose heads did not move spawns no
 * git. No blob is read before its size is known: a 600 MiB file in a few MB of pack must not end
 * every pass with "Cannot create a string longer than …" or an OOM kill.
 */
import { createHash } from 'node:crypto';
import { GitOpsError } from './git-errors.js';
import type { FileChange, LoggedCommit } from '../change-sets/index.js';
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

/**
 * Largest blob gpuops reads of the files it writes or compares (bytes). Generated manifests are a
 * few kB; spec files have their own, smaller cap (`definitions/spec-files.ts`).
 */
export const MAX_OBJECT_BYTES = 8 * 1024 * 1024;

/**
 * What `readObjects` answers for a blob over its cap: never equal to a file gpuops renders (it
 * starts with NUL), so a comparison says "differs", and never parsed as YAML that means anything.
 */
export const OVERSIZED = '\u0000gpuops: blob over the size cap, not read';

/** One file of a commit's tree: its path, blob and size in bytes as git reports them. */
export interface TreeEntry {
  path: string;
  blob: string;
  size: number;
}

/**
 * The id git gives a blob of `bytes`: the hash of `blob <length>\0` and the bytes (gitformat-
 * object(5), "Object format"), SHA-1 in a repository whose ids have 40 hex digits, SHA-256 in one
 * whose ids have 64 (`idLength`). Equals `git hash-object`.
 */
export function blobId(bytes: Uint8Array, idLength: 40 | 64 = 40): string {
  return createHash(idLength === 64 ? 'sha256' : 'sha1')
    .update(`blob ${bytes.byteLength}\0`)
    .update(bytes)
    .digest('hex');
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
  /** The path → blob and size listing of a commit's tree. */
  private readonly listingCache = new BoundedCache<string, Map<string, TreeEntry>>(8);
  /** The gitlinks (submodules) of the same listings. */
  private readonly gitlinkCache = new BoundedCache<string, GitlinkEntry[]>(8);
  /** `git log tips ^base`. */
  private readonly logCache = new BoundedCache<string, LoggedCommit[]>(64);

  constructor(private readonly git: GitRunner) {}

  /**
   * Contents of `<rev>:<path>` names, read through ONE `git cat-file --batch` process; a name that
   * is missing (or not a file) is absent from the result. `sizes: 'check'` asks git for each
   * object's size first (`cat-file --batch-check`) and answers {@link OVERSIZED} for a blob over
   * `maxBytes` without reading it; `'known'` is for names whose sizes the caller checked.
   */
  async readObjects(
    names: readonly string[],
    o: { sizes: 'check' | 'known'; maxBytes?: number } = { sizes: 'check' },
  ): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const unique = [...new Set(names)];
    // Names are `<sha>` or `<sha>:<path>` (immutable): an object read before is answered from memory.
    let unread: string[] = [];
    for (const name of unique) {
      const known = this.objectCache.get(name);
      if (known === undefined) unread.push(name);
      else if (known !== null) out.set(name, known);
    }
    if (unread.length === 0) return out;
    if (o.sizes === 'check') unread = await this.withinCap(unread, o.maxBytes ?? MAX_OBJECT_BYTES, out);
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

  /**
   * Of `names`, those whose blobs are at most `maxBytes` (one `cat-file --batch-check`); each blob
   * over the cap goes into `out` as {@link OVERSIZED}, and a missing name or a non-blob is left out.
   */
  private async withinCap(
    names: readonly string[],
    maxBytes: number,
    out: Map<string, string>,
  ): Promise<string[]> {
    const data = await this.git.batch('cat-file', ['cat-file', '--batch-check'], names.join('\n') + '\n');
    const lines = data.toString('utf8').split('\n');
    const keep: string[] = [];
    names.forEach((name, i) => {
      const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(lines[i] ?? '');
      if (!m || m[1] !== 'blob') return;
      if (Number(m[2]) > maxBytes) out.set(name, OVERSIZED);
      else keep.push(name);
    });
    return keep;
  }

  /** Every file of commit `base`'s tree with its blob and size (one `ls-tree -r -l`, kept per commit). */
  async entries(base: string): Promise<ReadonlyMap<string, TreeEntry>> {
    let listing = this.listingCache.get(base);
    if (listing) return listing;
    const out = await this.git.run('ls-tree', ['ls-tree', '-r', '-l', '-z', '--full-tree', base]);
    listing = new Map<string, TreeEntry>();
    const gitlinks: GitlinkEntry[] = [];
    for (const entry of out.split('\0')) {
      const m = /^\d+ blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(entry);
      if (m) listing.set(m[3]!, { path: m[3]!, blob: m[1]!, size: Number(m[2]) });
      // A submodule: a commit of another repository, no content here (see unreadable-specs.ts).
      const g = /^160000 commit ([0-9a-f]+) +-\t(.*)$/s.exec(entry);
      if (g) gitlinks.push({ path: g[2]!, commit: g[1]! });
    }
    this.listingCache.set(base, listing);
    this.gitlinkCache.set(base, gitlinks);
    return listing;
  }

  /**
   * The contents of the files of commit `base` that `choose` picks from its listing (path, blob,
   * size), sorted by path. Only the picked blobs are read, and only the sizes git reported are
   * looked at before: `choose` filters by name and size.
   * @throws GitOpsError when a picked blob cannot be read
   */
  async select(
    base: string,
    choose: (entries: readonly TreeEntry[]) => readonly TreeEntry[],
  ): Promise<Map<string, string>> {
    const picked = [...choose([...(await this.entries(base)).values()])].sort((a, b) =>
      a.path < b.path ? -1 : 1,
    );
    const contents = await this.readObjects(
      picked.map((e) => e.blob),
      { sizes: 'known' },
    );
    const tree = new Map<string, string>();
    for (const { path, blob } of picked) {
      const text = contents.get(blob);
      if (text === undefined)
        throw new GitOpsError('refused', 'cat-file', `blob ${blob} of ${path} not read`);
      tree.set(path, text);
    }
    return tree;
  }

  /**
   * Every file under `prefix` at commit `base`, as path → UTF-8 content, sorted by path.
   * @throws GitOpsError naming the path when a file there is over {@link MAX_OBJECT_BYTES}: the
   *   files under `clusters/` are gpuops's and small, and none is read in part
   */
  async tree(base: string, prefix: string): Promise<Map<string, string>> {
    // Commits never change: a tree read at the same base commit is answered from memory.
    const key = `${base}:${prefix}`;
    const cached = this.treeCache.get(key);
    if (cached) return new Map(cached);
    const under = folderOf(prefix);
    const tree = await this.select(base, (entries) => {
      const files = entries.filter((e) => e.path === prefix || e.path.startsWith(under));
      const big = files.find((e) => e.size > MAX_OBJECT_BYTES);
      if (big)
        throw new GitOpsError(
          'refused',
          'cat-file',
          `${big.path} is ${big.size} bytes, over the ${MAX_OBJECT_BYTES} gpuops reads of a file it writes; remove it from ${prefix || 'the repository'}`,
        );
      return files;
    });
    if (this.treeCache.size >= 16) this.treeCache.delete(this.treeCache.keys().next().value!);
    this.treeCache.set(key, tree);
    return new Map(tree);
  }

  /** The paths of the files under `prefix` at commit `base`, sorted; no content is read. */
  async paths(base: string, prefix: string): Promise<string[]> {
    const under = folderOf(prefix);
    const listing = await this.entries(base);
    return [...listing.keys()].filter((p) => p === prefix || p.startsWith(under)).sort();
  }

  /** The submodules (gitlinks, mode 160000) under `prefix` at commit `base`, from the listing of {@link entries}. */
  async gitlinks(base: string, prefix: string): Promise<GitlinkEntry[]> {
    let all = this.gitlinkCache.get(base);
    if (!all) {
      await this.entries(base);
      all = this.gitlinkCache.get(base) ?? [];
    }
    const under = folderOf(prefix);
    return all.filter((g) => g.path === prefix || g.path.startsWith(under));
  }

  /**
   * Keeps what commit `commit` holds, which gpuops just built (one fast-import) from `parent`'s
   * tree plus `files` (each `M 100644` with its content, or `D`): its listing is the parent's with
   * those files replaced, each blob's id and size computed here ({@link blobId}), so the next
   * pass reads the tree it wrote without an `ls-tree` or a `cat-file`. Only a parent whose listing
   * git gave (or that this rule derived from one git gave) is used; a commit anyone else made
   * has an id this never saw, and is read from git. Nothing is kept when a file would replace a
   * folder, a submodule or a file on its path (a shape this rule does not follow).
   */
  rememberCommit(commit: string, parent: string, files: readonly FileChange[]): void {
    const from = this.listingCache.get(parent);
    const links = this.gitlinkCache.get(parent);
    if (!from || !links) return;
    const idLength = commit.length === 64 ? 64 : 40;
    const listing = new Map(from);
    const contents: [string, string | null][] = [];
    for (const f of files) {
      if (!this.plainFile(f.path, listing, links)) return;
      if (f.content === null) {
        listing.delete(f.path);
        contents.push([`${commit}:${f.path}`, null]);
        continue;
      }
      const bytes = Buffer.from(f.content, 'utf8');
      const blob = blobId(bytes, idLength);
      // What a read of the blob would answer (a lone surrogate comes back as U+FFFD).
      const text = bytes.toString('utf8');
      listing.set(f.path, { path: f.path, blob, size: bytes.byteLength });
      contents.push([blob, text], [`${commit}:${f.path}`, text]);
    }
    for (const [name, text] of contents) this.objectCache.set(name, text);
    this.listingCache.set(commit, listing);
    this.gitlinkCache.set(commit, links);
  }

  /** Whether `path` is, or may become, a plain file of `listing`: no folder, submodule or file is on its way. */
  private plainFile(
    path: string,
    listing: ReadonlyMap<string, TreeEntry>,
    links: readonly GitlinkEntry[],
  ): boolean {
    const under = `${path}/`;
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1))
      if (listing.has(path.slice(0, i))) return false;
    for (const p of listing.keys()) if (p.startsWith(under)) return false;
    return !links.some((g) => g.path === path || g.path.startsWith(under) || path.startsWith(`${g.path}/`));
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
