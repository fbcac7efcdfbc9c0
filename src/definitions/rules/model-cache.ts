/**
 * `spec.modelCache` beside the schema (pure): where the claim is mounted, and what it may not
 * hide. The schema checks the shapes (claim name a DNS-1123 subdomain, the fill image a reference
 * the kubelet can pull); this file checks the mount path:
 *
 * - absolute (`/models`): a container's mount path is absolute on Linux (the kubelet joins a
 *   relative one to the root, which no reader expects), `..` segments are refused, and no name
 *   is longer than 255 bytes nor the path than 4095 (Linux's NAME_MAX and PATH_MAX: the runtime
 *   could not make the mount point);
 * - written plainly: no control character (a tab or newline is an invisible YAML slip, and
 *   `/proc/self/mountinfo` shows it escaped as `\011`), no space at either end, and no `:`. The
 *   API server accepts a `:` (the check went in Kubernetes 1.4 and out again, kubernetes#31707)
 *   but no runtime reads it as written: a runtime that builds Docker `host:container:options`
 *   bind strings (dockershim, cri-dockerd) takes `/models:ro` as `/models` with an option, and
 *   containerd mounts the claim at a directory named `models:ro` (kubernetes#129453). Either way
 *   the author meant a mount option, and gpuops mounts the cache read-only already;
 * - not the root and not at or below a path the container itself needs: `/proc`, `/sys`, `/dev`
 *   (the kernel's), `/etc` (the kubelet mounts `/etc/hosts`, `/etc/resolv.conf` there), the
 *   image's binaries and libraries (`/bin`, `/sbin`, `/lib`, `/lib64`, `/usr`), and the
 *   ServiceAccount and secret mounts (`/var/run/secrets`, `/run/secrets`). A cache mounted there
 *   hides them, and the container fails to start or starts wrong;
 * - not a directory above one of those (`/var`, `/var/run`, `/run`): the cache would hide it as
 *   well, and the kubelet's ServiceAccount token mount below it needs a mount point the runtime
 *   cannot create in a read-only cache, so the container does not start;
 * - not a path the template's algorithm container already mounts (the API server refuses two
 *   mounts at one path, "must be unique"), nor a directory above one of its mounts (the runtime
 *   makes that mount point inside the cache, which is read-only);
 * - the volume name `model-cache` is gpuops's: a template volume of that name is refused.
 *
 * The fill container asks for nothing: gpuops renders it with the restricted pod security of
 * every pod it writes (`manifests/model-cache.ts`), so there is no field of it to confine.
 */
import { escapeControl } from '../../util/index.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The name of the pod volume the claim is mounted from (Deployment and fill Job). */
export const MODEL_CACHE_VOLUME = 'model-cache';

/** Paths a model cache may not be mounted at or below (see the module comment). */
export const RESERVED_MOUNT_PATHS: readonly string[] = [
  '/proc',
  '/sys',
  '/dev',
  '/etc',
  '/bin',
  '/sbin',
  '/lib',
  '/lib64',
  '/usr',
  '/var/run/secrets',
  '/run/secrets',
];

/**
 * `//models/` → `/models`, `/./etc` → `/etc`: repeated and trailing slashes and `.` segments
 * dropped (how the kernel resolves the path; `..` is kept, for the caller to refuse).
 */
export function normalMountPath(path: string): string {
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  return path.startsWith('/') ? `/${segments.join('/')}` : segments.join('/');
}

/** Linux's limits (`limits.h`): bytes of one name, and of a whole path without its final NUL. */
const NAME_MAX = 255;
const PATH_MAX = 4095;
const bytes = (s: string): number => new TextEncoder().encode(s).length;

/**
 * What is wrong with how a container's mount path is written, or null (the rule every mount path
 * of a spec follows: `spec.modelCache.mountPath` and each `volumeMounts[].mountPath` of the
 * template's containers; module comment): a control character, white space at either end, a `:`
 * (no runtime reads it as written), not absolute. `readOnlyHint` ends the `:` message: how to
 * say read-only where the path is written.
 */
export function writtenMountPathProblem(path: string, readOnlyHint: string): string | null {
  const shown = JSON.stringify(path);
  if (escapeControl(path) !== path)
    return `${shown} holds a control character: a mount path is written on one line, without tabs`;
  if (path.trim() !== path)
    return `${shown} starts or ends with white space: the directory would be named with it`;
  if (path.includes(':'))
    return `${shown} holds ":": a mount path takes no options (the runtime would mount at a directory named with the ":" or misread it as options); ${readOnlyHint}, write the path alone, e.g. ${JSON.stringify(path.slice(0, path.indexOf(':')) || '/models')}`;
  if (!path.startsWith('/'))
    return `${shown} is not an absolute path: a mount path starts with "/" (e.g. /models)`;
  return null;
}

/**
 * Why `path` cannot hold a model cache, or null when it can (module comment: how it is written,
 * then where it is). Pure.
 */
export function mountPathProblem(path: string): string | null {
  const written = writtenMountPathProblem(path, 'the cache is mounted read-only already');
  if (written) return written;
  const p = normalMountPath(path);
  if (p.split('/').includes('..')) return `"${path}" holds a ".." segment: name the directory itself`;
  const long = p.split('/').find((s) => bytes(s) > NAME_MAX);
  if (long !== undefined || bytes(p) > PATH_MAX)
    return `"${path}" is longer than Linux allows (${long === undefined ? `${PATH_MAX} bytes in all` : `${NAME_MAX} bytes a name`}): the runtime could not make the mount point`;
  if (p === '/')
    return 'the root directory would hide the whole image: mount the cache at a directory, e.g. /models';
  const under = RESERVED_MOUNT_PATHS.find((r) => p === r || p.startsWith(`${r}/`));
  if (under)
    return `"${path}" is at or below ${under}, which the container itself needs; the cache would hide it (mount it elsewhere, e.g. /models)`;
  const below = RESERVED_MOUNT_PATHS.filter((r) => r.startsWith(`${p}/`));
  if (below.length > 0)
    return `"${path}" is above ${below.join(' and ')}, which the container itself needs; the cache would hide it (mount it elsewhere, e.g. /models)`;
  return null;
}

/**
 * Why the cache at `path` clashes with a mount of the template's algorithm container, or null:
 * the same path (the API server refuses two mounts at one path, "must be unique"), or a mount
 * below it (its mount point would have to be made in the read-only cache, and the container
 * would not start).
 */
function templateMountProblem(path: string, pod: Obj): string | null {
  const container = list(pod['containers'])[0];
  const mounts = isMap(container) ? list(container['volumeMounts']) : [];
  const cache = normalMountPath(path);
  const at = (j: number) => `spec.template.spec.containers[0].volumeMounts[${j}]`;
  for (const [j, m] of mounts.entries()) {
    if (!isMap(m) || typeof m['mountPath'] !== 'string') continue;
    const other = normalMountPath(m['mountPath']);
    if (other === cache) return `"${path}" is already mounted by ${at(j)}: one path holds one mount`;
    if (other.startsWith(`${cache}/`))
      return `"${path}" is above ${at(j)} ("${m['mountPath']}"): the cache is mounted read-only, so that mount point cannot be made in it`;
  }
  return null;
}

const AT: PathSegment[] = ['spec', 'modelCache'];

/**
 * Every problem of an Algorithm's `spec.modelCache` beyond the schema's (module comment), located
 * at the field. The mount path is not checked when the schema already refused it (or the whole
 * `spec.modelCache`); a refused claim name or fill step does not stop it.
 * @param value  the Algorithm document as parsed
 * @param schema the schema's problems in `value`
 */
export function modelCacheProblems(value: unknown, schema: readonly FieldProblem[]): FieldProblem[] {
  const spec = isMap(value) && isMap(value['spec']) ? value['spec'] : {};
  const cache = spec['modelCache'];
  if (!isMap(cache)) return [];
  const out: FieldProblem[] = [];
  // Only a refusal of the cache itself or of its mountPath leaves no path to check: a bad claim
  // name or fill step must not hide a mount path that would break the container as well.
  const refused = schema.some(
    (p) => AT.every((s, i) => p.path[i] === s) && (p.path.length === 2 || p.path[2] === 'mountPath'),
  );
  const path = cache['mountPath'];
  const pod = isMap(spec['template']) && isMap(spec['template']['spec']) ? spec['template']['spec'] : {};
  if (typeof path === 'string' && !refused) {
    const problem = mountPathProblem(path);
    if (problem) out.push({ path: [...AT, 'mountPath'], at: 'value', message: problem });
    const clash = problem ? null : templateMountProblem(path, pod);
    if (clash) out.push({ path: [...AT, 'mountPath'], at: 'value', message: clash });
  }
  list(pod['volumes']).forEach((v, i) => {
    if (isMap(v) && v['name'] === MODEL_CACHE_VOLUME)
      out.push({
        path: ['spec', 'template', 'spec', 'volumes', i, 'name'],
        at: 'value',
        message: `the volume name "${MODEL_CACHE_VOLUME}" is the one gpuops mounts spec.modelCache from: rename this volume`,
      });
  });
  return out;
}
