/**
 * Reads a GitOps folder the way Argo CD reads a directory application
 * (`source.directory.recurse: true`; repo-server `findManifests`): every file named `*.yaml`,
 * `*.yml` or `*.json` below the folder, in lexical path order, each YAML document one object.
 * Nothing is skipped for its name: a `kustomization.yaml` is read as an object of kind
 * `Kustomization` and fails the sync, as it does in Argo CD. Flux's generated kustomization reads
 * the same files when the folder holds no kustomization (see `manifests/cluster-layout.ts`).
 */
import type { KubeObject } from '../cluster/index.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkObject, parseDocuments } from './kustomize-tree.js';
import type { ApplyError, SourcedManifest } from './types.js';

/** File names Argo CD's directory source reads (its `manifestFile` pattern, without Jsonnet). */
const MANIFEST_FILE = /\.(yaml|yml|json)$/;

/** Result of {@link readManifestDirectory}. */
export interface ManifestDirectory {
  manifests: SourcedManifest[];
  /** One entry per unreadable file or bad document; the good manifests are still returned. */
  errors: ApplyError[];
}

/** Options of {@link readManifestDirectory}. */
export interface DirectoryOptions {
  /** Read sub-folders too (`directory.recurse`); default true, as the shipped Application sets. */
  recurse?: boolean;
}

/** Repo-relative files under `root`, lexical order (Go's `filepath.Walk` order), hidden folders skipped. */
function listFiles(root: string, recurse: boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (recurse && !e.name.startsWith('.')) walk(full);
      } else if (e.isFile() && MANIFEST_FILE.test(e.name)) out.push(full);
    }
  };
  walk(root);
  return out;
}

/**
 * Reads every manifest below `dir`.
 * @param dir e.g. a checkout's `clusters/prod`
 * @returns manifests in path order, and errors naming file and line; never throws for bad input
 *   (a missing folder is one error)
 */
export function readManifestDirectory(dir: string, options: DirectoryOptions = {}): ManifestDirectory {
  const root = path.resolve(dir);
  const manifests: SourcedManifest[] = [];
  const errors: ApplyError[] = [];
  let files: string[];
  try {
    files = listFiles(root, options.recurse ?? true);
  } catch (err) {
    errors.push({ reason: 'InvalidManifest', file: '.', message: `${dir}: ${String(err)}` });
    return { manifests, errors };
  }
  for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      errors.push({ reason: 'InvalidManifest', file: rel, message: `${rel}: ${String(err)}` });
      continue;
    }
    for (const { line, value } of parseDocuments(text, rel, errors)) {
      const problem = checkObject(value);
      if (problem) {
        errors.push({ reason: 'InvalidManifest', file: rel, line, message: `${rel}:${line}: ${problem}` });
        continue;
      }
      manifests.push({ file: rel, line, object: structuredClone(value) as KubeObject });
    }
  }
  return { manifests, errors };
}
