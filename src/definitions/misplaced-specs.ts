/**
 * gpuops specs in places gpuops does not read: an `Algorithm` or `Policy` document of gpuops's
 * API group in a YAML file outside `algorithms/**` and the top of `policies/` (a Policy in
 * `policies/team/`, an Algorithm dropped in `clusters/prod/` or at the root, a spec named
 * `x.YAML`). gpuops skips them, as the rule of `spec-files.ts` says, so an operator who put one
 * there would see nothing happen; `validate` and `plan` warn and name each one. Other YAML of the
 * repo (Flux Kustomizations, Argo CD Applications, Helm values) is not reported: only a document
 * whose `apiVersion` is `gpuops.dev/…` and whose `kind` is `Algorithm` or `Policy` is. The
 * folders gpuops writes its manifests into are not even read ({@link writtenByGpuops}).
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { GPUOPS, inFlight } from '../util/index.js';
import { locate, parseDocuments } from './rules/yaml-documents.js';
import { MAX_FILE_BYTES, specFolderOf, walksInto } from './spec-files.js';
import type { SpecError } from './types.js';

/** A YAML file name in any letter case (`x.YAML` is looked at: the loaders read only `.yaml`/`.yml`). */
export const YAML_ANY_CASE = /\.ya?ml$/i;
/** Cheap look before parsing (block, flow or JSON style): with `GPUOPS.prefix`, in every file holding a gpuops spec. */
const SPEC_KIND = /\b(?:Algorithm|Policy)\b/;

/** At most this many YAML files are looked at in one repo (other YAML than gpuops's own output). */
export const MAX_LOOKED_AT = 20_000;

/**
 * Whether a repo-relative `/` path is looked at for misplaced specs (pure): a YAML file in any
 * letter case that the loaders do not read (`specFolderOf` is null), not inside a dot-folder nor
 * a folder gpuops writes ({@link writtenByGpuops}). The disk walk (`repo-walk.ts`) and the Git
 * loader (`pass/misplaced-specs.ts`) follow it.
 */
export function lookedAtForMisplaced(file: string): boolean {
  const folders = file.split('/').slice(0, -1);
  return (
    YAML_ANY_CASE.test(file) &&
    specFolderOf(file) === null &&
    folders.every(walksInto) &&
    !writtenByGpuops(folders)
  );
}

/**
 * Whether the repo-relative folder named by `folders` (its `/`-separated names) is one gpuops
 * writes its rendered manifests into, or inside one (pure): `clusters/<cluster>/nodes/`,
 * `…/namespaces/`, `…/algorithms/<name>/` and `…/standby/<set>/`, for any cluster (the layout of
 * ../shared/DESIGN.md, "The Git repository gpuops works on", and `docs/standby.md`). Those files
 * are gpuops's own output (the pass reads `clusters/<cluster>/` apart), never a person's spec, so
 * they are not read for misplaced specs: 10,000 node files would be 10,000 blobs read and would
 * fill `MAX_LOOKED_AT`. A file a person drops elsewhere under `clusters/` (`clusters/prod/x.yaml`,
 * `clusters/prod/algorithms/x.yaml`, a Flux Kustomization) is still looked at.
 */
export function writtenByGpuops(folders: readonly string[]): boolean {
  if (folders[0] !== 'clusters' || folders.length < 3) return false;
  const sub = folders[2];
  if (sub === 'nodes' || sub === 'namespaces') return true;
  return (sub === 'algorithms' || sub === 'standby') && folders.length >= 4;
}

/**
 * Why a gpuops spec at repo-relative `file` is not read, for its `kind`.
 */
function whereItBelongs(file: string, kind: string): string {
  const parts = file.split('/');
  if (!/\.ya?ml$/.test(parts.at(-1) ?? ''))
    return `not read: gpuops reads spec files named *.yaml or *.yml (lower case); rename this ${kind} file`;
  if (kind === 'Policy' && parts[0] === 'policies')
    return 'not read: gpuops reads Policy files at the top of policies/ only (policies/*.yaml), not in a sub-folder; move it to policies/';
  const home = kind === 'Policy' ? 'policies/ (policies/*.yaml)' : 'algorithms/ (any depth)';
  return `not read: this ${kind} is outside the folders gpuops reads; ${kind} files go in ${home}`;
}

/**
 * The warnings for the gpuops specs in `text`, a YAML file at repo-relative `file` that the
 * loaders do not read (pure): one per document whose `apiVersion` starts `gpuops.dev/` and whose
 * `kind` is `Algorithm` or `Policy`, located at its `kind`. A file the loaders read, or one that is
 * not YAML or holds no such document, gives none; a YAML error gives none (the file is not
 * gpuops's to judge).
 */
export function misplacedSpecWarnings(file: string, text: string): SpecError[] {
  if (specFolderOf(file) !== null || !YAML_ANY_CASE.test(file)) return [];
  if (!text.includes(GPUOPS.prefix) || !SPEC_KIND.test(text)) return [];
  const parsed = parseDocuments({ path: file, text });
  return parsed.documents.flatMap((doc) => {
    const v = doc.value as { apiVersion?: unknown; kind?: unknown } | null;
    if (v === null || typeof v !== 'object') return [];
    if (typeof v.apiVersion !== 'string' || !v.apiVersion.startsWith(GPUOPS.prefix)) return [];
    if (v.kind !== 'Algorithm' && v.kind !== 'Policy') return [];
    const at = locate(doc, ['kind'], 'value');
    return [{ file, line: at.line, column: at.column, field: 'kind', message: whereItBelongs(file, v.kind) }];
  });
}

/**
 * The warnings for the gpuops specs among `files` (repo-relative YAML files the loaders skip,
 * listed by `repo-walk.ts`'s one walk), sorted by path ({@link misplacedSpecWarnings}). A file
 * over `MAX_FILE_BYTES` (by `lstat`, never followed) or that cannot be read is passed over
 * (warnings are best effort, never an error).
 */
export async function misplacedSpecs(dir: string, files: readonly string[]): Promise<SpecError[]> {
  const look = async (file: string): Promise<SpecError[]> => {
    const abs = path.join(dir, file);
    const size = (await lstat(abs).catch(() => undefined))?.size ?? Infinity;
    if (size > MAX_FILE_BYTES) return [];
    return misplacedSpecWarnings(file, await readFile(abs, 'utf8').catch(() => ''));
  };
  // 32 files in flight at a time: a repo of thousands of files never runs out of descriptors.
  const found = await inFlight([...files].sort(), 32, look);
  return found.flat();
}
