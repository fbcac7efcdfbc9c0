/**
 * Reads a folder the way `kustomize build` reads it for a small subset: a `kustomization.yaml`
 * whose `resources` (and `components` that only add resources) list plain manifest files and
 * folders (each folder with its own kustomization), recursively, plus the optional `namespace`
 * field. Used for the install manifests (templates/install); the GitOps folder gpuops writes has
 * no kustomization and is read by `directory-source.ts`. Transformers that
 * would change the objects (patches, images, name prefixes, generators, …) are reported as
 * unsupported rather than silently ignored, and that kustomization is skipped.
 */
import type { KubeObject } from '../cluster/index.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { ApplyError, SourcedManifest } from './types.js';
import { documentValue } from '../util/index.js';

/** The file names kustomize accepts for a kustomization, in its order of preference. */
export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** Kustomization fields this reader understands. */
const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'resources',
  'bases',
  'components',
  'namespace',
]);

/** Result of {@link readKustomizeTree}. */
export interface KustomizeTree {
  manifests: SourcedManifest[];
  /** One entry per bad file, document or field; the good manifests are still returned. */
  errors: ApplyError[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kustomizationIn(dir: string): string | undefined {
  for (const name of KUSTOMIZATION_FILES) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** Parses every YAML document of `text` (YAML 1.1, as Kubernetes tooling reads it), with its line. */
export function parseDocuments(
  text: string,
  rel: string,
  errors: ApplyError[],
): { line: number; value: unknown }[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, version: '1.1' });
  const out: { line: number; value: unknown }[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const start = doc.contents?.range?.[0] ?? doc.range[0];
    const line = lineCounter.linePos(start).line;
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      errors.push({
        reason: 'InvalidManifest',
        file: rel,
        line: e.linePos?.[0]?.line ?? line,
        message: `${rel}: ${e.message}`,
      });
      continue;
    }
    const parsed = documentValue(doc);
    if (!parsed.ok) {
      errors.push({ reason: 'InvalidManifest', file: rel, line, message: `${rel}: ${parsed.error}` });
      continue;
    }
    const value = parsed.value;
    if (value === null || value === undefined) continue; // an empty document (`---` at the end)
    out.push({ line, value });
  }
  return out;
}

/** Checks the fields every object needs; returns a message or undefined. */
export function checkObject(value: unknown): string | undefined {
  if (!isObject(value)) return 'a manifest must be a mapping';
  if (typeof value.apiVersion !== 'string' || value.apiVersion === '') return 'apiVersion is required';
  if (typeof value.kind !== 'string' || value.kind === '') return 'kind is required';
  if (!isObject(value.metadata)) return 'metadata is required';
  if (typeof value.metadata.name !== 'string' || value.metadata.name === '')
    return 'metadata.name is required (generateName is not supported)';
  for (const field of ['labels', 'annotations'] as const) {
    const m = value.metadata[field];
    if (m === undefined) continue;
    if (!isObject(m) || Object.values(m).some((v) => typeof v !== 'string'))
      return `metadata.${field} must map strings to strings (quote values such as "true" or "-1")`;
  }
  return undefined;
}

/** One walk of a kustomization tree: what it found so far, and the kustomizations it is inside. */
interface Walk {
  manifests: SourcedManifest[];
  errors: ApplyError[];
  /** A path relative to the tree's root (`.` for the root), as errors name it. */
  rel: (p: string) => string;
  visiting: Set<string>;
}

/** The objects of one manifest file, in `namespace` when given (Namespaces and Nodes excepted). */
function readManifestFile(w: Walk, file: string, namespace: string | undefined): void {
  const rel = w.rel(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    w.errors.push({ reason: 'InvalidManifest', file: rel, message: `${rel}: ${String(err)}` });
    return;
  }
  for (const { line, value } of parseDocuments(text, rel, w.errors)) {
    const problem = checkObject(value);
    if (problem) {
      w.errors.push({ reason: 'InvalidManifest', file: rel, line, message: `${rel}:${line}: ${problem}` });
      continue;
    }
    const object = structuredClone(value) as KubeObject;
    if (namespace !== undefined && object.kind !== 'Namespace' && object.kind !== 'Node') {
      object.metadata.namespace = namespace;
    }
    w.manifests.push({ file: rel, line, object });
  }
}

/**
 * The namespace and entries (resources, bases, components) of one kustomization file, or null
 * with an error when it is no mapping, has a field the applier does not support, or a namespace
 * that is not a string.
 */
function kustomizationFields(
  w: Walk,
  file: string,
): { namespace: string | undefined; entries: unknown[] } | null {
  const rel = w.rel(file);
  const k = parseDocuments(readFileSync(file, 'utf8'), rel, w.errors)[0]?.value;
  if (!isObject(k)) {
    w.errors.push({
      reason: 'InvalidKustomization',
      file: rel,
      line: 1,
      message: `${rel}: must be a mapping`,
    });
    return null;
  }
  const unsupported = Object.keys(k).filter((f) => !SUPPORTED_FIELDS.has(f));
  if (unsupported.length > 0) {
    w.errors.push({
      reason: 'UnsupportedKustomization',
      file: rel,
      message: `${rel}: fields not supported by the gpuops applier: ${unsupported.join(', ')}; this kustomization is skipped`,
    });
    return null;
  }
  if (k.namespace !== undefined && typeof k.namespace !== 'string') {
    w.errors.push({
      reason: 'InvalidKustomization',
      file: rel,
      message: `${rel}: namespace must be a string`,
    });
    return null;
  }
  // A Component (kustomize.config.k8s.io/v1alpha1) that only adds resources reads like a base.
  const entries = [...asList(k.resources), ...asList(k.bases), ...asList(k.components)];
  return { namespace: k.namespace as string | undefined, entries };
}

/** The path an entry of `file` (in `folder`) names, or null with an error: not a path, remote, missing. */
function entryTarget(w: Walk, file: string, folder: string, entry: unknown): string | null {
  const rel = w.rel(file);
  if (typeof entry !== 'string' || entry === '') {
    w.errors.push({
      reason: 'InvalidKustomization',
      file: rel,
      message: `${rel}: resources: every entry must be a path, got ${JSON.stringify(entry)}`,
    });
    return null;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || entry.startsWith('github.com/')) {
    w.errors.push({
      reason: 'UnsupportedKustomization',
      file: rel,
      message: `${rel}: resources: remote resource ${entry} is not supported`,
    });
    return null;
  }
  const target = path.resolve(folder, entry);
  if (!existsSync(target)) {
    w.errors.push({
      reason: 'InvalidKustomization',
      file: rel,
      message: `${rel}: resources: ${entry} does not exist`,
    });
    return null;
  }
  return target;
}

/** The manifests of `folder`'s kustomization and every one it includes; a cycle is an error. */
function readKustomization(w: Walk, folder: string, inherited: string | undefined): void {
  const file = kustomizationIn(folder);
  if (!file) {
    w.errors.push({
      reason: 'InvalidKustomization',
      file: w.rel(folder),
      message: `${w.rel(folder)}: no ${KUSTOMIZATION_FILES.join(' / ')} in this folder`,
    });
    return;
  }
  if (w.visiting.has(file)) {
    w.errors.push({
      reason: 'InvalidKustomization',
      file: w.rel(file),
      message: `${w.rel(file)}: cycle: this kustomization includes itself`,
    });
    return;
  }
  const fields = kustomizationFields(w, file);
  if (!fields) return;
  // As in kustomize, the outer kustomization's namespace wins over the inner one's.
  const namespace = inherited ?? fields.namespace;
  w.visiting.add(file);
  for (const entry of fields.entries) {
    const target = entryTarget(w, file, folder, entry);
    if (target === null) continue;
    if (statSync(target).isDirectory()) readKustomization(w, target, namespace);
    else readManifestFile(w, target, namespace);
  }
  w.visiting.delete(file);
}

/**
 * Reads every manifest reachable from `dir`'s kustomization.
 * @param dir a folder holding `kustomization.yaml`, e.g. a checkout's `clusters/prod`
 * @returns manifests in kustomization order, and errors naming file and line; never throws for bad input
 */
export function readKustomizeTree(dir: string): KustomizeTree {
  const root = path.resolve(dir);
  const w: Walk = {
    manifests: [],
    errors: [],
    rel: (p) => path.relative(root, p) || '.',
    visiting: new Set(),
  };
  readKustomization(w, root, undefined);
  return { manifests: w.manifests, errors: w.errors };
}

function asList(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}
