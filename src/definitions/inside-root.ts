/**
 * Nothing outside the GitOps repo's root is read (docs/design.md, "Architecture"). A pull request can
 * commit a symbolic link as easily as a file: `algorithms -> ../outside`, `policies -> /etc`,
 * `clusters/prod -> /` would make `validate` (which CI runs on pull requests) and `plan` read, and
 * print, files of the machine. Every folder gpuops reads under the root is checked here before it
 * is listed: no part of its path below the root is a symbolic link, and its real path lies under
 * the root's real path. The check costs one `lstat` per path part and one `realpath`, so a link to
 * `/usr` or `/` is refused at once instead of walked.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * Why the folder `rel` of the repo at `root` must not be read, or null when it may (also when it
 * does not exist: a missing folder is no files, the caller's usual case).
 * @param root the repo root as given (it may itself be reached through a link)
 * @param rel a repo-relative folder with `/` separators, e.g. `algorithms` or `clusters/prod`
 * @returns `{ path, message }`: the repo-relative path of the first offending part (e.g.
 *   `clusters/prod`) and a message naming where the link points
 */
export function outsideRoot(root: string, rel: string): { path: string; message: string } | null {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  let here = root;
  for (let i = 0; i < parts.length; i++) {
    here = path.join(here, parts[i]!);
    const shown = parts.slice(0, i + 1).join('/');
    let st;
    try {
      st = lstatSync(here);
    } catch {
      return null;
    }
    if (st.isSymbolicLink()) {
      let target = '?';
      try {
        target = realpathSync(here);
      } catch {
        target = 'a missing path';
      }
      return {
        path: shown,
        message: `a symbolic link (to ${target}); gpuops reads nothing through links: commit the folder itself`,
      };
    }
  }
  let real: string;
  let rootReal: string;
  try {
    real = realpathSync(here);
    rootReal = realpathSync(root);
  } catch {
    return null;
  }
  if (real !== rootReal && !real.startsWith(rootReal + path.sep))
    return { path: parts.join('/'), message: `resolves to ${real}, outside the repo root ${rootReal}` };
  return null;
}
