/**
 * Reads a folder the way `kustomize build` reads it for a small subset: a `kustomization.yaml`
 * whose `resources` (and `components` that only add resources) list plain manifest files and
 * folders (each folder with its own kustomization), recursively, plus the optional `namespace`
 * field. Used for the install manifests (templates/install); the GitOps folder gpuops writes has
 * no kustomization and is read by `directory-source.ts`. Transformers that
 * would change the objects (patches, images, name prefixes, generators, …) are reported as
 * unsupported rather than silently ignored, and that kustomization is skipped.
 */
import type { KubeObject } from '../cluster/object.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { ApplyError, SourcedManifest } from './types.js';

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
    const value: unknown = doc.toJS();
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

/**
 * Reads every manifest reachable from `dir`'s kustomization.
 * @param dir a folder holding `kustomization.yaml`, e.g. a checkout's `clusters/prod`
 * @returns manifests in kustomization order, and errors naming file and line; never throws for bad input
 */
export function readKustomizeTree(dir: string): KustomizeTree {
  const manifests: SourcedManifest[] = [];
  const errors: ApplyError[] = [];
  const root = path.resolve(dir);
  const rel = (p: string): string => path.relative(root, p) || '.';
  const visiting = new Set<string>();

  const readManifestFile = (file: string, namespace: string | undefined): void => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      errors.push({ reason: 'InvalidManifest', file: rel(file), message: `${rel(file)}: ${String(err)}` });
      return;
    }
    for (const { line, value } of parseDocuments(text, rel(file), errors)) {
      const problem = checkObject(value);
      if (problem) {
        errors.push({
          reason: 'InvalidManifest',
          file: rel(file),
          line,
          message: `${rel(file)}:${line}: ${problem}`,
        });
        continue;
      }
      const object = structuredClone(value) as KubeObject;
      if (namespace !== undefined && object.kind !== 'Namespace' && object.kind !== 'Node') {
        object.metadata.namespace = namespace;
      }
      manifests.push({ file: rel(file), line, object });
    }
  };

  const readKustomization = (folder: string, inherited: string | undefined): void => {
    const file = kustomizationIn(folder);
    if (!file) {
      errors.push({
        reason: 'InvalidKustomization',
        file: rel(folder),
        message: `${rel(folder)}: no ${KUSTOMIZATION_FILES.join(' / ')} in this folder`,
      });
      return;
    }
    if (visiting.has(file)) {
      errors.push({
        reason: 'InvalidKustomization',
        file: rel(file),
        message: `${rel(file)}: cycle: this kustomization includes itself`,
      });
      return;
    }
    const docs = parseDocuments(readFileSync(file, 'utf8'), rel(file), errors);
    const k = docs[0]?.value;
    if (!isObject(k)) {
      errors.push({
        reason: 'InvalidKustomization',
        file: rel(file),
        line: 1,
        message: `${rel(file)}: must be a mapping`,
      });
      return;
    }
    const unsupported = Object.keys(k).filter((f) => !SUPPORTED_FIELDS.has(f));
    if (unsupported.length > 0) {
      errors.push({
        reason: 'UnsupportedKustomization',
        file: rel(file),
        message: `${rel(file)}: fields not supported by the gpuops applier: ${unsupported.join(', ')}; this kustomization is skipped`,
      });
      return;
    }
    if (k.namespace !== undefined && typeof k.namespace !== 'string') {
      errors.push({
        reason: 'InvalidKustomization',
        file: rel(file),
        message: `${rel(file)}: namespace must be a string`,
      });
      return;
    }
    // As in kustomize, the outer kustomization's namespace wins over the inner one's.
    const namespace = inherited ?? (k.namespace as string | undefined);
    // A Component (kustomize.config.k8s.io/v1alpha1) that only adds resources reads like a base.
    const entries = [...asList(k.resources), ...asList(k.bases), ...asList(k.components)];
    visiting.add(file);
    for (const entry of entries) {
      if (typeof entry !== 'string' || entry === '') {
        errors.push({
          reason: 'InvalidKustomization',
          file: rel(file),
          message: `${rel(file)}: resources: every entry must be a path, got ${JSON.stringify(entry)}`,
        });
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || entry.startsWith('github.com/')) {
        errors.push({
          reason: 'UnsupportedKustomization',
          file: rel(file),
          message: `${rel(file)}: resources: remote resource ${entry} is not supported`,
        });
        continue;
      }
      const target = path.resolve(folder, entry);
      if (!existsSync(target)) {
        errors.push({
          reason: 'InvalidKustomization',
          file: rel(file),
          message: `${rel(file)}: resources: ${entry} does not exist`,
        });
        continue;
      }
      if (statSync(target).isDirectory()) readKustomization(target, namespace);
      else readManifestFile(target, namespace);
    }
    visiting.delete(file);
  };

  readKustomization(root, undefined);
  return { manifests, errors };
}

function asList(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}
