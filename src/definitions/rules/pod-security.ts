/**
 * What a spec's `spec.template` may not choose unless the policy's `spec.podSecurity` allows it
 * (docs/design.md, "Architecture": "a spec author is confined"). The fields are those of the Pod
 * Security Standards' baseline profile that widen a pod's reach beyond its namespace
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/), plus the pod's identity:
 *
 * | field (pod, or any container) | allowance |
 * |---|---|
 * | `securityContext.privileged: true`, Windows `hostProcess: true`, seccomp or AppArmor `Unconfined` | `privileged` |
 * | `securityContext.allowPrivilegeEscalation: true` | `allowPrivilegeEscalation` |
 * | `securityContext.capabilities.add` | the names in `capabilities` (`CAP_` prefix and case ignored) |
 * | a `hostPath` volume | `hostPath` |
 * | `hostNetwork`, `hostPID`, `hostIPC: true` | the field of the same name |
 * | a container port's `hostPort` (other than 0) | `hostPorts` |
 * | `serviceAccountName` / `serviceAccount` other than `default` | the names in `serviceAccountNames` |
 * | `automountServiceAccountToken: true`, a projected `serviceAccountToken` | `automountServiceAccountToken` |
 *
 * The neighbours stay allowed: `false` of each boolean, `capabilities.drop`, a port without
 * `hostPort`, `serviceAccountName: default`. A Secret or ConfigMap of another namespace needs no
 * rule here: Kubernetes' references have no `namespace` (`pod-unknown-fields.ts` says so). Each
 * problem is located at the field. Pure.
 */
import type { PodSecurityPolicy } from '../types.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** `CAP_SYS_ADMIN` and `sys_admin` are the capability `SYS_ADMIN`. */
const capability = (name: string) => name.toUpperCase().replace(/^CAP_/, '');

/**
 * Every field of the partial `PodSpec` `pod` that `allow` does not permit.
 * @param pod  the value of `spec.template.spec`
 * @param base its path in the document
 */
export function podSecurityProblems(
  pod: Obj,
  base: readonly PathSegment[],
  allow: PodSecurityPolicy,
): FieldProblem[] {
  const out: FieldProblem[] = [];
  const refuse: Refuse = (path, what, knob, at = 'value') =>
    out.push({
      path: [...base, ...path],
      at,
      message: `${what}; the policy's podSecurity.${knob} does not allow it (ask the platform team)`,
    });
  const TOKEN = 'automountServiceAccountToken';
  for (const f of ['hostNetwork', 'hostPID', 'hostIPC'] as const)
    if (pod[f] === true && !allow[f])
      refuse([f], `${f} shares the node's ${f.slice(4).toLowerCase()} namespace`, f);
  if (pod[TOKEN] === true && !allow[TOKEN])
    refuse([TOKEN], 'mounts a ServiceAccount token, an API credential', TOKEN);
  for (const f of ['serviceAccountName', 'serviceAccount'] as const) {
    const name = pod[f];
    if (typeof name === 'string' && name !== 'default' && !allow.serviceAccountNames.includes(name))
      refuse([f], `runs as ServiceAccount "${name}", not the namespace's default`, 'serviceAccountNames');
  }
  list(pod['volumes']).forEach((v, i) => {
    if (!isMap(v)) return;
    if ('hostPath' in v && !allow.hostPath)
      refuse(
        ['volumes', i, 'hostPath'],
        "a hostPath volume reads and writes the node's files",
        'hostPath',
        'key',
      );
    const sources = isMap(v['projected']) ? list(v['projected']['sources']) : [];
    sources.forEach((src, j) => {
      if (isMap(src) && 'serviceAccountToken' in src && !allow[TOKEN])
        refuse(
          ['volumes', i, 'projected', 'sources', j, 'serviceAccountToken'],
          'a projected ServiceAccount token is an API credential',
          TOKEN,
          'key',
        );
    });
  });
  securityContext(pod['securityContext'], ['securityContext'], allow, refuse);
  for (const group of ['initContainers', 'containers'] as const) {
    list(pod[group]).forEach((c, i) => {
      if (!isMap(c)) return;
      securityContext(c['securityContext'], [group, i, 'securityContext'], allow, refuse);
      list(c['ports']).forEach((p, j) => {
        if (isMap(p) && typeof p['hostPort'] === 'number' && p['hostPort'] !== 0 && !allow.hostPorts)
          refuse(
            [group, i, 'ports', j, 'hostPort'],
            'a hostPort opens a port on the node itself',
            'hostPorts',
          );
      });
    });
  }
  return out;
}

type Refuse = (
  path: PathSegment[],
  what: string,
  knob: keyof PodSecurityPolicy,
  at?: 'key' | 'value',
) => void;

const PROFILE = { seccompProfile: 'seccomp', appArmorProfile: 'AppArmor' } as const;

/**
 * A pod's or a container's `securityContext`: `privileged`, `allowPrivilegeEscalation` and
 * `capabilities.add` (containers only; the pod's has none), Windows `hostProcess`, `Unconfined`
 * seccomp and AppArmor profiles.
 */
function securityContext(sc: unknown, at: PathSegment[], allow: PodSecurityPolicy, refuse: Refuse): void {
  if (!isMap(sc)) return;
  if (sc['privileged'] === true && !allow.privileged)
    refuse(
      [...at, 'privileged'],
      'a privileged container has every device and capability of the node',
      'privileged',
    );
  if (sc['allowPrivilegeEscalation'] === true && !allow.allowPrivilegeEscalation)
    refuse(
      [...at, 'allowPrivilegeEscalation'],
      'lets a process gain more privileges than its parent (setuid)',
      'allowPrivilegeEscalation',
    );
  const allowed = new Set(allow.capabilities.map(capability));
  list(isMap(sc['capabilities']) ? sc['capabilities']['add'] : undefined).forEach((cap, k) => {
    if (typeof cap === 'string' && !allowed.has(capability(cap)))
      refuse([...at, 'capabilities', 'add', k], `adds the capability ${cap}`, 'capabilities');
  });
  if (allow.privileged) return;
  if (isMap(sc['windowsOptions']) && sc['windowsOptions']['hostProcess'] === true)
    refuse(
      [...at, 'windowsOptions', 'hostProcess'],
      'a Windows HostProcess container runs as the node',
      'privileged',
    );
  for (const profile of ['seccompProfile', 'appArmorProfile'] as const) {
    const p = sc[profile];
    if (isMap(p) && p['type'] === 'Unconfined')
      refuse(
        [...at, profile, 'type'],
        `an Unconfined ${PROFILE[profile]} profile lifts the container's confinement`,
        'privileged',
      );
  }
}
