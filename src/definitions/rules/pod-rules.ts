import type { AlgorithmSpec } from '../types.js';
import { didYouMean } from './did-you-mean.js';
import { writtenMountPathProblem } from './model-cache.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isMap) : []);

/** The four probe handlers; a probe has exactly one (Kubernetes `validateHandler`). */
const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const PROBES = ['readinessProbe', 'livenessProbe', 'startupProbe'];

/**
 * IANA service name, what a container port's `name` must be: ≤ 15 characters of lower-case
 * letters, digits and `-`, at least one letter, no `-` at either end or twice in a row
 * (Kubernetes `IsValidPortName`, RFC 6335 §5.1).
 */
export function isPortName(name: string): boolean {
  return name.length <= 15 && /^[a-z0-9](?:-?[a-z0-9])*$/.test(name) && /[a-z]/.test(name);
}

/**
 * The rules of the API server's pod validation that the OpenAPI schema cannot say, over a
 * partial `PodSpec` (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/):
 * - a probe has exactly one handler (`exec`, `httpGet`, `tcpSocket`, `grpc`);
 * - a volume mount names a volume of `volumes`; volume names are unique; mount paths are unique
 *   per container;
 * - container ports clash on the same `containerPort` and `protocol` (default TCP) anywhere in the
 *   pod, or on the same `name`; a port name is an IANA service name; a probe's named port is one
 *   of its container's ports;
 * - an `env` name of the algorithm's container is not one `spec.env` already sets.
 *
 * @param pod  the value of `spec.template.spec`
 * @param spec the Algorithm's spec (for `spec.env`)
 */
export function podRuleProblems(pod: Obj, spec: AlgorithmSpec): FieldProblem[] {
  const out: FieldProblem[] = [];
  const base: PathSegment[] = ['spec', 'template', 'spec'];
  const problem: Report = (path, message, at = 'value') =>
    out.push({ path: [...base, ...path], at, message });

  const volumes = new Map<string, number>();
  list(pod['volumes']).forEach((v, i) => {
    if (typeof v['name'] !== 'string') return;
    const first = volumes.get(v['name']);
    if (first !== undefined)
      problem(['volumes', i, 'name'], `duplicate volume name "${v['name']}": also volumes[${first}]`);
    else volumes.set(v['name'], i);
  });
  const seen: PodPorts = { ports: new Map(), names: new Map() };
  for (const group of ['initContainers', 'containers'] as const) {
    list(pod[group]).forEach((c, i) => {
      const where = (...p: PathSegment[]): PathSegment[] => [group, i, ...p];
      const own = portProblems(c, `${group}[${i}]`, seen, where, problem);
      probeProblems(c, own, where, problem);
      mountProblems(c, volumes, where, problem);
      if (group === 'containers' && i === 0) {
        const fromSpec = new Set((spec.env ?? []).map((e) => e.name));
        list(c['env']).forEach((e, j) => {
          if (typeof e['name'] === 'string' && fromSpec.has(e['name'])) {
            problem(where('env', j, 'name'), `"${e['name']}" is already set by spec.env`);
          }
        });
      }
    });
  }
  return out;
}

/** Reports a problem at a path below `spec.template.spec`. */
type Report = (path: PathSegment[], message: string, at?: 'key' | 'value') => void;
/** A path below one container (`containers[i]…`). */
type Where = (...p: PathSegment[]) => PathSegment[];
/** The ports (`port/protocol`) and port names seen so far in the pod, each with where it was. */
interface PodPorts {
  ports: Map<string, string>;
  names: Map<string, string>;
}

/** A container's ports: unique in the pod by number/protocol and by name, names IANA service names. Its port names. */
function portProblems(c: Obj, label: string, seen: PodPorts, where: Where, problem: Report): Set<string> {
  const own = new Set<string>();
  list(c['ports']).forEach((p, j) => {
    const port = p['containerPort'];
    const protocol = typeof p['protocol'] === 'string' ? p['protocol'] : 'TCP';
    const at = `${label}.ports[${j}]`;
    if (typeof port === 'number') {
      const key = `${port}/${protocol}`;
      const first = seen.ports.get(key);
      if (first) problem(where('ports', j, 'containerPort'), `port ${key} clashes with ${first}`);
      else seen.ports.set(key, at);
    }
    const name = p['name'];
    if (typeof name !== 'string') return;
    own.add(name);
    if (!isPortName(name)) {
      problem(
        where('ports', j, 'name'),
        `"${name}" is not a port name: at most 15 lower-case letters, digits and "-", with a letter, no "-" at either end or twice (IANA service name)`,
      );
    }
    const first = seen.names.get(name);
    if (first) problem(where('ports', j, 'name'), `port name "${name}" clashes with ${first}`);
    else seen.names.set(name, at);
  });
  return own;
}

/** A container's probes: exactly one handler each, a named port one of the container's `own` port names. */
function probeProblems(c: Obj, own: ReadonlySet<string>, where: Where, problem: Report): void {
  for (const probe of PROBES) {
    const p = c[probe];
    if (!isMap(p)) continue;
    const handlers = HANDLERS.filter((h) => h in p);
    if (handlers.length === 0) {
      problem(where(probe), `a probe needs a handler: one of ${HANDLERS.join(', ')}`);
    } else if (handlers.length > 1) {
      problem(
        where(probe, handlers[1]!),
        `a probe has one handler; this one has ${handlers.join(' and ')}`,
        'key',
      );
    }
    for (const h of ['httpGet', 'tcpSocket'] as const) {
      const named = isMap(p[h]) ? p[h]['port'] : undefined;
      if (typeof named === 'string' && !/^\d+$/.test(named) && !own.has(named)) {
        problem(where(probe, h, 'port'), `port "${named}" is not a port of this container (ports[].name)`);
      }
    }
  }
}

/**
 * A container's volume mounts: each names a volume of the pod, no mount path twice, each path
 * written as a runtime reads it (`writtenMountPathProblem`, the rule `spec.modelCache.mountPath`
 * follows too: no control character, no white space at the ends, no `:`, absolute).
 */
function mountProblems(c: Obj, volumes: ReadonlyMap<string, number>, where: Where, problem: Report): void {
  const paths = new Map<string, number>();
  list(c['volumeMounts']).forEach((m, j) => {
    const name = m['name'];
    if (typeof name === 'string' && !volumes.has(name)) {
      const guess = didYouMean(name, [...volumes.keys()]);
      const known =
        volumes.size > 0
          ? `; volumes: ${[...volumes.keys()].join(', ')}`
          : '; spec.template.spec.volumes is empty';
      problem(
        where('volumeMounts', j, 'name'),
        `no volume "${name}"${guess ? `; did you mean "${guess}"?` : known}`,
      );
    }
    const mountPath = m['mountPath'];
    if (typeof mountPath !== 'string') return;
    const written = writtenMountPathProblem(mountPath, 'for a read-only mount set readOnly: true on it');
    if (written) problem(where('volumeMounts', j, 'mountPath'), written);
    const first = paths.get(mountPath);
    if (first !== undefined)
      problem(
        where('volumeMounts', j, 'mountPath'),
        `"${mountPath}" is already mounted by volumeMounts[${first}]`,
      );
    else paths.set(mountPath, j);
  });
}
