/**
 * Which algorithms a spec that fails validation stands for (pure). Such an algorithm keeps what
 * Git holds for it: a broken edit never proposes deleting a running workload, and its errors go
 * to the pull requests that changed it.
 */
import type { LoadedRepo, SpecError } from '../definitions/index.js';

/**
 * Algorithms in files with errors that did not make it into `repo.algorithms`, by
 * `metadata.name`, and whether some file under `algorithms/` has errors but no name could be read
 * from it (a YAML syntax error): then any algorithm may be the broken one. Reads the names the
 * spec parser found (`repo.names`); it parses nothing again.
 */
export function invalidAlgorithms(repo: Pick<LoadedRepo, 'algorithms' | 'errors' | 'names'>): {
  invalid: { algorithm: string; errors: SpecError[] }[];
  unnamed: boolean;
} {
  const valid = new Set(repo.algorithms.map((a) => a.name));
  const byFile = new Map<string, SpecError[]>();
  for (const e of repo.errors) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  const out: { algorithm: string; errors: SpecError[] }[] = [];
  let unnamed = false;
  for (const [file, errors] of byFile) {
    const names = repo.names?.get(file);
    if (names === undefined) continue; // not an Algorithm file (a policy)
    if (names.length === 0) unnamed = true;
    for (const name of names) if (!valid.has(name)) out.push({ algorithm: name, errors });
  }
  return { invalid: out, unnamed };
}

/** Algorithm folders under `clusters/<cluster>/algorithms/` in the base files. */
export function algorithmFolders(cluster: string, base: ReadonlyMap<string, string>): string[] {
  const prefix = `clusters/${cluster}/algorithms/`;
  const names = new Set<string>();
  for (const p of base.keys()) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0]!);
  return [...names];
}

/**
 * The algorithm names whose generated files must stay: the invalid ones by name, or — when a
 * broken file has no readable name (a YAML syntax error) — every algorithm folder in Git.
 */
export function keptForInvalidSpecs(
  invalid: { invalid: { algorithm: string }[]; unnamed: boolean },
  cluster: string,
  base: ReadonlyMap<string, string>,
): string[] {
  return invalid.unnamed ? algorithmFolders(cluster, base) : invalid.invalid.map((i) => i.algorithm);
}
