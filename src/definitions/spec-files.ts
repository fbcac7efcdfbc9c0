/**
 * Which files of a GitOps repo are specs, and how many bytes of them gpuops reads (pure): the one
 * rule the disk loader (`load.ts`: `validate`, `plan --repo`) and the Git loader (`pass/specs.ts`:
 * `reconcile`, `run`) both follow, so a spec is read, skipped or refused the same way whichever
 * command looks at it. Sizes are the ones the file system or git reports before anything is read:
 * a 600 MiB file (a few MB in a Git pack) is that file's error, never a string Node cannot make.
 */
import type { SpecError } from './types.js';

/**
 * Largest spec file gpuops reads (bytes, 256 KiB); a larger file is reported, not parsed. A spec
 * at every list cap (`rules/list-caps.ts`: 100 ports, 500 env variables, 100 volumes and mounts)
 * is about 35 KB; parsing YAML with positions costs about a second per MiB, paid by every pass.
 */
export const MAX_FILE_BYTES = 256 * 1024;

/**
 * Largest total of the files gpuops reads from one spec folder (`algorithms/`, `policies/`) in one
 * load (bytes). 600 specs of 2 kB are 1.2 MB; a file past the budget is reported, not read.
 */
export const MAX_TOTAL_BYTES = 32 * 1024 * 1024;

const YAML_FILE = /\.ya?ml$/;

/** Whether a file name is a spec file's: `*.yaml` or `*.yml`, lower case (the loaders read no other). */
export function isSpecFileName(name: string): boolean {
  return YAML_FILE.test(name);
}

/** Whether a loader walks into a sub-folder of `algorithms/`: a dot-folder (`.archive/`, `.github/`) holds no specs. */
export function walksInto(folderName: string): boolean {
  return !folderName.startsWith('.');
}

/**
 * The spec folder a repo-relative `/` path is a spec file of: `algorithms` (`*.yaml`/`*.yml` at any
 * depth, but not inside a dot-folder), `policies` (top level only), else null.
 */
export function specFolderOf(path: string): 'algorithms' | 'policies' | null {
  const parts = path.split('/');
  if (!isSpecFileName(parts.at(-1) ?? '')) return null;
  if (parts[0] === 'policies') return parts.length === 2 ? 'policies' : null;
  if (parts[0] === 'algorithms' && parts.length >= 2)
    return parts.slice(1, -1).every(walksInto) ? 'algorithms' : null;
  return null;
}

/** A spec file as listed before it is read: repo-relative path and size in bytes. */
export interface ListedFile {
  path: string;
  size: number;
}

/**
 * The files of one spec folder to read, in path order: a file over {@link MAX_FILE_BYTES} is that
 * file's error, and so is every file that would take the folder past {@link MAX_TOTAL_BYTES}
 * (the earlier files, by path, are read). Errors are located at line 1 of the file.
 */
export function budgetSpecFiles(files: readonly ListedFile[]): { read: string[]; errors: SpecError[] } {
  const read: string[] = [];
  const errors: SpecError[] = [];
  let total = 0;
  const error = (file: string, message: string) =>
    errors.push({ file, line: 1, column: 1, field: '', message });
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (f.size > MAX_FILE_BYTES) {
      error(f.path, `file is ${f.size} bytes; spec files are at most ${MAX_FILE_BYTES}`);
    } else if (total + f.size > MAX_TOTAL_BYTES) {
      error(
        f.path,
        `not read: the spec files before it hold ${total} bytes, and gpuops reads at most ${MAX_TOTAL_BYTES} bytes of one folder`,
      );
    } else {
      total += f.size;
      read.push(f.path);
    }
  }
  return { read, errors };
}
