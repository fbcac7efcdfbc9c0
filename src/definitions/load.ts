/**
 * Reads a GitOps repo's Algorithm and Policy files from disk; the parsing and checking is pure and
 * lives in `./rules/`.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAlgorithms, type ParsedAlgorithms } from './rules/algorithms.js';
import { parseDefaultPolicy, parsePolicy, type ParsedPolicy } from './rules/policy.js';
import { compareSpecErrors } from './rules/format.js';
import { outsideRoot } from './inside-root.js';
import { parseRepo } from './rules/repo.js';
import type { SpecFile } from './rules/yaml-documents.js';
import type { LoadedRepo, Policy, SpecError } from './types.js';

/** The shipped default policy, `policies/default.yaml` at the package root. */
export const DEFAULT_POLICY_FILE = fileURLToPath(new URL('../../policies/default.yaml', import.meta.url));

/**
 * Largest spec file gpuops reads (bytes, 256 KiB); a larger file is reported, not parsed. A spec
 * at every list cap (`rules/list-caps.ts`: 100 ports, 500 env variables, 100 volumes and mounts)
 * is about 35 KB; parsing YAML with positions costs about a second per MiB, paid by every pass.
 */
export const MAX_FILE_BYTES = 256 * 1024;

const YAML_FILE = /\.ya?ml$/;

/** Files read from one folder of the repo, and the files that could not be read. */
export interface ReadFiles {
  files: SpecFile[];
  errors: SpecError[];
}

/**
 * Reads every `*.yaml` / `*.yml` under `<dir>/<folder>` (recursively when `recursive`), sorted by
 * path. Paths in the result are relative to `dir` with `/` separators. A missing folder is no
 * files; symbolic links are reported and not followed (a pull request must not make gpuops read
 * outside the repo): a linked file, and the folder itself when it (or its real path) leaves the
 * root ({@link outsideRoot}), reported at line 0 without reading anything; a linked folder inside it
 * is never entered. Files over {@link MAX_FILE_BYTES} are reported and skipped.
 */
export async function readYamlFiles(dir: string, folder: string, recursive: boolean): Promise<ReadFiles> {
  const out: ReadFiles = { files: [], errors: [] };
  const found: string[] = [];
  const refused = outsideRoot(dir, folder);
  if (refused) {
    out.errors.push({ file: `${refused.path}/`, line: 0, column: 0, field: '', message: refused.message });
    return out;
  }
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && rel === folder) return;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const relPath = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (recursive && !e.name.startsWith('.')) await walk(relPath);
      } else if (YAML_FILE.test(e.name)) {
        if (e.isSymbolicLink()) {
          out.errors.push({
            file: relPath,
            line: 1,
            column: 1,
            field: '',
            message: 'symbolic links are not followed; commit the file itself',
          });
          continue;
        }
        if (e.isFile()) found.push(relPath);
      }
    }
  };
  await walk(folder);
  // Read in parallel (a repo holds hundreds of small files); results keep the sorted walk order.
  const read = await mapLimit(
    found,
    32,
    async (relPath): Promise<{ error: SpecError } | { file: SpecFile }> => {
      const full = path.join(dir, relPath);
      const { size } = await lstat(full);
      if (size > MAX_FILE_BYTES) {
        return {
          error: {
            file: relPath,
            line: 1,
            column: 1,
            field: '',
            message: `file is ${size} bytes; spec files are at most ${MAX_FILE_BYTES}`,
          },
        };
      }
      return { file: { path: relPath, text: await readFile(full, 'utf8') } };
    },
  );
  for (const r of read) {
    if ('error' in r) out.errors.push(r.error);
    else out.files.push(r.file);
  }
  return out;
}

/** `fn` over `items` with at most `limit` in flight; results in the order of `items`. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Reads and parses the shipped default policy. Throws when it is missing or invalid. */
export async function loadDefaultPolicy(file = DEFAULT_POLICY_FILE): Promise<Policy> {
  return parseDefaultPolicy({ path: file, text: await readFile(file, 'utf8') });
}

async function assertDirectory(dir: string): Promise<void> {
  const st = await lstat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new Error(`${dir} is not a directory`);
}

/**
 * The policy of the GitOps repo at `dir`: the shipped default overridden by `policies/*.yaml`
 * (see `parsePolicy`), with the override files' errors and how many were read.
 * Throws when `dir` is not a directory.
 */
export async function loadPolicy(dir: string): Promise<ParsedPolicy & { files: number }> {
  await assertDirectory(dir);
  const [defaults, read] = await Promise.all([loadDefaultPolicy(), readYamlFiles(dir, 'policies', false)]);
  const parsed = parsePolicy(defaults, read.files);
  return {
    ...parsed,
    errors: [...read.errors, ...parsed.errors],
    files: read.files.length + read.errors.length,
  };
}

/**
 * The Algorithm files under `<dir>/algorithms/` checked against `policy` (see `parseAlgorithms`).
 */
export async function loadAlgorithms(
  dir: string,
  policy: Policy,
): Promise<ParsedAlgorithms & { files: number }> {
  const read = await readYamlFiles(dir, 'algorithms', true);
  const parsed = parseAlgorithms(read.files, policy);
  return {
    ...parsed,
    errors: [...read.errors, ...parsed.errors],
    files: read.files.length + read.errors.length,
  };
}

/**
 * Loads the GitOps repo at `dir`: merged policy, valid algorithms with defaults filled, every
 * located error (sorted by file, line, column), and the number of Algorithm and Policy files
 * (including ones that could not be read). One bad file never hides the others.
 * `defaults`: the shipped default policy when the caller loaded it already (else it is read here).
 * Throws only when `dir` is not a directory or the shipped default policy is broken.
 */
export async function loadRepo(dir: string, given?: Policy): Promise<LoadedRepo> {
  await assertDirectory(dir);
  const [defaults, algorithms, policies] = await Promise.all([
    given ?? loadDefaultPolicy(),
    readYamlFiles(dir, 'algorithms', true),
    readYamlFiles(dir, 'policies', false),
  ]);
  const repo = parseRepo(defaults, { algorithms: algorithms.files, policies: policies.files });
  const readErrors = [...policies.errors, ...algorithms.errors];
  return {
    ...repo,
    errors: [...readErrors, ...repo.errors].sort(compareSpecErrors),
    files: repo.files + readErrors.length,
  };
}
