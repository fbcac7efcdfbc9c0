/**
 * Reads a GitOps repo's Algorithm and Policy files from disk; the parsing and checking is pure and
 * lives in `./rules/`.
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAlgorithms, type ParsedAlgorithms } from './rules/algorithms.js';
import { parseDefaultPolicy, parsePolicy, type ParsedPolicy } from './rules/policy.js';
import { compareSpecErrors } from './rules/format.js';
import { outsideRoot } from './inside-root.js';
import { misplacedSpecs } from './misplaced-specs.js';
import { parseRepo } from './rules/repo.js';
import type { SpecFile } from './rules/yaml-documents.js';
import { budgetSpecFiles } from './spec-files.js';
import { walkRepo, type RepoListing } from './repo-walk.js';
import type { LoadedRepo, Policy, SpecError } from './types.js';
import { inFlight } from '../util/index.js';

/** The shipped default policy, `policies/default.yaml` at the package root. */
export const DEFAULT_POLICY_FILE = fileURLToPath(new URL('../../policies/default.yaml', import.meta.url));

export { MAX_FILE_BYTES, MAX_TOTAL_BYTES } from './spec-files.js';

/** Files read from one folder of the repo, and the files that could not be read. */
export interface ReadFiles {
  files: SpecFile[];
  errors: SpecError[];
}

/**
 * Reads the spec files `listing` found in `<dir>/<folder>` (`repo-walk.ts`), sorted by path. Paths
 * are relative to `dir` with `/` separators. Symbolic links are reported and not followed (a pull
 * request must not make gpuops read outside the repo): a linked file, and the folder itself when
 * it (or its real path) leaves the root ({@link outsideRoot}), reported at line 0 without reading
 * anything. How many bytes are read is `spec-files.ts`'s rule (the Git loader's too): a file over
 * `MAX_FILE_BYTES` or past the folder's `MAX_TOTAL_BYTES` is reported by the size `lstat` gives
 * and not read.
 */
async function readSpecFolder(
  dir: string,
  folder: 'algorithms' | 'policies',
  listing: RepoListing,
): Promise<ReadFiles> {
  const refused = outsideRoot(dir, folder);
  if (refused)
    return {
      files: [],
      errors: [{ file: `${refused.path}/`, line: 0, column: 0, field: '', message: refused.message }],
    };
  const out: ReadFiles = { files: [], errors: [...listing.links[folder]] };
  // Sizes first (lstat), then the shared budget, then only the chosen files are read.
  const sizes = await inFlight(listing.specs[folder], 32, async (p) => ({
    path: p,
    size: (await lstat(path.join(dir, p))).size,
  }));
  const chosen = budgetSpecFiles(sizes);
  out.errors.push(...chosen.errors);
  // Read in parallel (a repo holds hundreds of small files); results keep the sorted walk order.
  const read = await inFlight(chosen.read, 32, async (relPath): Promise<SpecFile> => ({
    path: relPath,
    text: await readFile(path.join(dir, relPath), 'utf8'),
  }));
  out.files.push(...read);
  return out;
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
  const listing = await walkRepo(dir, { others: false });
  const [defaults, read] = await Promise.all([loadDefaultPolicy(), readSpecFolder(dir, 'policies', listing)]);
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
  const read = await readSpecFolder(dir, 'algorithms', await walkRepo(dir, { others: false }));
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
 * (including ones that could not be read). One bad file never hides the others. `warnings`: the
 * specs' values most likely meant otherwise (`rules/spec-warnings.ts`) and the gpuops specs in
 * places gpuops does not read (`misplaced-specs.ts`), sorted like the errors; absent when none.
 * `defaults`: the shipped default policy when the caller loaded it already (else it is read here).
 * `options.misplaced: false` lists only `algorithms/` and `policies/` and gives no misplaced-spec
 * warnings (`validate FILE`: the file it checks is a spec file, never misplaced).
 * Throws only when `dir` is not a directory or the shipped default policy is broken.
 */
export async function loadRepo(
  dir: string,
  given?: Policy,
  options: { misplaced: boolean } = { misplaced: true },
): Promise<LoadedRepo> {
  await assertDirectory(dir);
  // One walk of the repo: spec files to the loader, other YAML to the misplaced-spec check.
  const listing = await walkRepo(dir, { others: options.misplaced });
  const [defaults, algorithms, policies, misplaced] = await Promise.all([
    given ?? loadDefaultPolicy(),
    readSpecFolder(dir, 'algorithms', listing),
    readSpecFolder(dir, 'policies', listing),
    misplacedSpecs(dir, listing.others),
  ]);
  const repo = parseRepo(defaults, { algorithms: algorithms.files, policies: policies.files });
  const readErrors = [...policies.errors, ...algorithms.errors];
  const warnings = [...(repo.warnings ?? []), ...misplaced].sort(compareSpecErrors);
  return {
    ...repo,
    ...(warnings.length > 0 ? { warnings } : {}),
    errors: [...readErrors, ...repo.errors].sort(compareSpecErrors),
    files: repo.files + readErrors.length,
    // A spec file not read names no algorithm: any may be in it, so none is taken for deleted.
    names: new Map([...(repo.names ?? []), ...algorithms.errors.map((e) => [e.file, []] as const)]),
  };
}
