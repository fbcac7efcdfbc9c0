/**
 * The one walk of a GitOps repo on disk (`loadRepo`: `validate`, `plan --repo`): every folder is
 * listed once and each file goes to the spec loader (`spec-files.ts`'s rule: `algorithms/**`, the
 * top of `policies/`) or, when it is other YAML, to the misplaced-spec check
 * (`misplaced-specs.ts`). Symbolic links are never followed, dot-folders and the folders gpuops
 * writes under `clusters/<cluster>/` (`writtenByGpuops`) never entered.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { outsideRoot } from './inside-root.js';
import { specFolderOf, walksInto } from './spec-files.js';
import { MAX_LOOKED_AT, writtenByGpuops, YAML_ANY_CASE } from './misplaced-specs.js';
import type { SpecError } from './types.js';

/** What {@link walkRepo} found: repo-relative `/` paths, each list sorted by path. */
export interface RepoListing {
  /** Spec files (regular files) of `algorithms/**` and of the top of `policies/`. */
  specs: Record<'algorithms' | 'policies', string[]>;
  /** Spec files that are symbolic links: each one's error (not followed, not read). */
  links: Record<'algorithms' | 'policies', SpecError[]>;
  /** Other YAML files (any letter case) to look at for misplaced specs, at most `MAX_LOOKED_AT`. */
  others: string[];
}

/** Whether a repo-relative folder holds or leads to spec files (`algorithms/**`, `policies/`). */
function inSpecFolder(rel: string): boolean {
  return rel === 'algorithms' || rel === 'policies' || rel.startsWith('algorithms/');
}

/**
 * Lists the repo at `dir` once, sorted by name at each level. With `others: false` only
 * `algorithms/` and `policies/` are listed (`validate FILE` needs no other folder). A folder of
 * the spec folders that cannot be listed throws (a missing `algorithms/` or `policies/` is no
 * files); any other folder that cannot be listed is passed over (the misplaced-spec warnings are
 * best effort). Past `MAX_LOOKED_AT` other YAML files, only the spec folders are still listed.
 * @throws Error (the `readdir` error) for a folder of `algorithms/**` or `policies/` that exists but cannot be listed
 */
export async function walkRepo(dir: string, options: { others: boolean }): Promise<RepoListing> {
  const out: RepoListing = {
    specs: { algorithms: [], policies: [] },
    links: { algorithms: [], policies: [] },
    others: [],
  };
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(rel === '' ? dir : path.join(dir, rel), { withFileTypes: true });
    } catch (err) {
      if (!inSpecFolder(rel)) return;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !rel.includes('/')) return;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const relPath = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (walksInto(e.name) && wanted(relPath, options.others && out.others.length < MAX_LOOKED_AT))
          await walk(relPath);
        continue;
      }
      const folder = specFolderOf(relPath);
      if (folder !== null) {
        if (e.isSymbolicLink()) out.links[folder].push(linkError(relPath));
        else if (e.isFile()) out.specs[folder].push(relPath);
      } else if (
        options.others &&
        e.isFile() &&
        YAML_ANY_CASE.test(e.name) &&
        out.others.length < MAX_LOOKED_AT
      ) {
        out.others.push(relPath);
      }
    }
  };
  if (options.others) await walk('');
  // A spec folder that is (or passes through) a symbolic link is refused by the loader
  // (`outsideRoot`) before anything is read; it is not listed either (a link to `/` is not walked).
  else
    await Promise.all(
      (['algorithms', 'policies'] as const).filter((f) => outsideRoot(dir, f) === null).map(walk),
    );
  return out;
}

/**
 * Whether the walk enters folder `rel`: the spec folders always, any other while `others` are
 * looked for, but for the folders gpuops writes its manifests into (`writtenByGpuops`).
 */
function wanted(rel: string, others: boolean): boolean {
  return inSpecFolder(rel) || (others && !writtenByGpuops(rel.split('/')));
}

function linkError(file: string): SpecError {
  return {
    file,
    line: 1,
    column: 1,
    field: '',
    message: 'symbolic links are not followed; commit the file itself',
  };
}
