/**
 * `spec.modelCache` beside the schema (pure): where the claim is mounted, and what it may not
 * hide. The schema checks the shapes (claim name a DNS-1123 subdomain, the fill image a reference
 * the kubelet can pull); this file checks the mount path:
 *
 * - absolute (`/models`): a container's mount path is absolute on Linux (the kubelet joins a
 *   relative one to the root, which no reader expects), and `..` segments are refused;
 * - not the root and not at or below a path the container itself needs: `/proc`, `/sys`, `/dev`
 *   (the kernel's), `/etc` (the kubelet mounts `/etc/hosts`, `/etc/resolv.conf` there), the
 *   image's binaries and libraries (`/bin`, `/sbin`, `/lib`, `/lib64`, `/usr`), and the
 *   ServiceAccount and secret mounts (`/var/run/secrets`, `/run/secrets`). A cache mounted there
 *   hides them, and the container fails to start or starts wrong;
 * - not a path the template's algorithm container already mounts (the API server refuses two
 *   mounts at one path, "must be unique");
 * - the volume name `model-cache` is gpuops's: a template volume of that name is refused.
 *
 * The fill container asks for nothing: gpuops renders it with the restricted pod security of
 * every pod it writes (`manifests/model-cache.ts`), so there is no field of it to confine.
 */
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

/** Why `path` cannot hold a model cache, or null when it can. */
export function mountPathProblem(path: string): string | null {
  if (!path.startsWith('/'))
    return `"${path}" is not an absolute path: a mount path starts with "/" (e.g. /models)`;
  const p = normalMountPath(path);
  if (p.split('/').includes('..')) return `"${path}" holds a ".." segment: name the directory itself`;
  if (p === '/')
    return 'the root directory would hide the whole image: mount the cache at a directory, e.g. /models';
  const under = RESERVED_MOUNT_PATHS.find((r) => p === r || p.startsWith(`${r}/`));
  if (under)
    return `"${path}" is at or below ${under}, which the container itself needs; the cache would hide it (mount it elsewhere, e.g. /models)`;
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
    const container = list(pod['containers'])[0];
    const mounts = isMap(container) ? list(container['volumeMounts']) : [];
    const j = mounts.findIndex(
      (m) =>
        isMap(m) &&
        typeof m['mountPath'] === 'string' &&
        normalMountPath(m['mountPath']) === normalMountPath(path),
    );
    if (!problem && j !== -1)
      out.push({
        path: [...AT, 'mountPath'],
        at: 'value',
        message: `"${path}" is already mounted by spec.template.spec.containers[0].volumeMounts[${j}]: one path holds one mount`,
      });
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
