/**
 * Branch heads of a remote that is a repository on this machine (a path or `file://` URL), read
 * from its ref files the way `git ls-remote --heads` reads them — loose refs under `refs/heads/`
 * win over `packed-refs` (gitrepository-layout(5)) — without starting a process. A pass over a
 * local remote that has not moved (the replay makes thousands) then spawns no git at all.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The git directory of a local remote URL, or null when the URL is not local or the layout unusual. */
function localGitDir(url: string): string | null {
  let dir: string;
  if (url.startsWith('file://')) dir = fileURLToPath(url);
  else if (isAbsolute(url)) dir = url;
  else return null;
  const candidates = [dir, join(dir, '.git')];
  for (const d of candidates) {
    try {
      if (!statSync(d).isDirectory() || !existsSync(join(d, 'HEAD'))) continue;
    } catch {
      continue;
    }
    // The reftable backend keeps no ref files: let git read it.
    if (existsSync(join(d, 'reftable')) || !existsSync(join(d, 'refs', 'heads'))) return null;
    return d;
  }
  return null;
}

async function looseHeads(dir: string, prefix: string, out: Map<string, string>): Promise<boolean> {
  for (const e of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = `${prefix}/${e.name}`;
    if (e.isDirectory()) {
      if (!(await looseHeads(dir, rel, out))) return false;
    } else if (!e.name.endsWith('.lock')) {
      const sha = (await readFile(join(dir, rel), 'utf8')).trim();
      if (!SHA.test(sha)) return false; // a symbolic ref: let git resolve it
      out.set(rel.slice('refs/heads/'.length), sha);
    }
  }
  return true;
}

/**
 * Heads of the local repository at `url` by branch name, or `null` when `url` is not a local
 * repository with ref files (a network URL, the reftable backend, a symbolic branch ref): the
 * caller then asks git (`ls-remote`). Never throws for those cases; a read error returns `null` too.
 */
export async function localRemoteHeads(url: string): Promise<Map<string, string> | null> {
  const dir = localGitDir(url);
  if (!dir) return null;
  try {
    const heads = new Map<string, string>();
    const packed = await readFile(join(dir, 'packed-refs'), 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    for (const line of packed.split('\n')) {
      const m = /^([0-9a-f]+) refs\/heads\/(.+)$/.exec(line);
      if (m) heads.set(m[2]!, m[1]!);
    }
    const loose = new Map<string, string>();
    if (!(await looseHeads(dir, 'refs/heads', loose))) return null;
    for (const [b, sha] of loose) heads.set(b, sha);
    return heads;
  } catch {
    return null;
  }
}
