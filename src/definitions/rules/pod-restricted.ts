/**
 * The controls of the Pod Security Standards' "restricted" profile (and "baseline" below it) that
 * `pod-security.ts` does not cover, each refused unless the policy's `podSecurity` allows it
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/):
 *
 * | field (pod, or any container) | profile | allowance |
 * |---|---|---|
 * | a volume other than `configMap`, `csi`, `downwardAPI`, `emptyDir`, `ephemeral`, `persistentVolumeClaim`, `projected`, `secret` (`gitRepo`, `nfs`, `iscsi`, `cephfs`, `flexVolume`, …) | restricted | the type in `volumeTypes` (`hostPath`: its own allowance) |
 * | `seLinuxOptions.type` other than `container_t`, `container_init_t`, `container_kvm_t`, `container_engine_t`; any `user` or `role` | baseline | `seLinux` |
 * | a sysctl outside the safe set | baseline | its name in `sysctls` |
 * | `procMount` other than `Default` | baseline | `privileged` |
 * | `runAsNonRoot: false`, `runAsUser: 0` | restricted | `runAsRoot` |
 *
 * What "restricted" also requires and a spec need not write (`allowPrivilegeEscalation: false`,
 * `capabilities.drop: [ALL]`, a `RuntimeDefault` seccomp profile, `runAsNonRoot: true`) gpuops
 * renders itself (`manifests/pod-security.ts`). Pure.
 */
import type { PodSecurityPolicy } from '../types.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Volume types Pod Security "restricted" allows. */
export const RESTRICTED_VOLUME_TYPES: readonly string[] = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/** SELinux types Pod Security "baseline" allows (empty: the runtime's default). */
const SELINUX_TYPES = ['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'];

/** Sysctls Pod Security "baseline" allows (namespaced, isolated from the node). */
export const SAFE_SYSCTLS: readonly string[] = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];

type Refuse = (
  path: PathSegment[],
  what: string,
  knob: keyof PodSecurityPolicy,
  at?: 'key' | 'value',
) => void;

/**
 * Every field of the partial `PodSpec` `pod` that the restricted controls above refuse and
 * `allow` does not permit, located at the field.
 * @param pod  the value of `spec.template.spec`
 * @param base its path in the document
 */
export function podRestrictedProblems(
  pod: Obj,
  base: readonly PathSegment[],
  allow: PodSecurityPolicy,
): FieldProblem[] {
  const out: FieldProblem[] = [];
  const refuse: Refuse = (path, what, knob, at = 'value') =>
    out.push({
      path: [...base, ...path],
      at,
      message: `${what}; the policy's podSecurity.${knob} does not allow it (Pod Security restricted; ask the platform team)`,
    });
  const allowedVolumes = new Set([...RESTRICTED_VOLUME_TYPES, ...allow.volumeTypes, 'name', 'hostPath']);
  list(pod['volumes']).forEach((v, i) => {
    if (!isMap(v)) return;
    for (const type of Object.keys(v))
      if (!allowedVolumes.has(type))
        refuse(['volumes', i, type], `a volume of type ${type} is mounted by the node`, 'volumeTypes', 'key');
  });
  const sc = pod['securityContext'];
  if (isMap(sc)) {
    list(sc['sysctls']).forEach((s, i) => {
      const name = isMap(s) ? s['name'] : undefined;
      if (typeof name === 'string' && !SAFE_SYSCTLS.includes(name) && !allow.sysctls.includes(name))
        refuse(
          ['securityContext', 'sysctls', i, 'name'],
          `the sysctl ${name} is not namespaced from the node`,
          'sysctls',
        );
    });
  }
  containerContexts(pod, allow, refuse);
  return out;
}

/** The pod's and every container's `securityContext`: SELinux, procMount, running as root. */
function containerContexts(pod: Obj, allow: PodSecurityPolicy, refuse: Refuse): void {
  const contexts: [PathSegment[], unknown][] = [[['securityContext'], pod['securityContext']]];
  for (const group of ['initContainers', 'containers'] as const)
    list(pod[group]).forEach((c, i) => {
      if (isMap(c)) contexts.push([[group, i, 'securityContext'], c['securityContext']]);
    });
  for (const [at, sc] of contexts) {
    if (!isMap(sc)) continue;
    const se = sc['seLinuxOptions'];
    if (isMap(se) && !allow.seLinux) {
      if (typeof se['type'] === 'string' && !SELINUX_TYPES.includes(se['type']))
        refuse(
          [...at, 'seLinuxOptions', 'type'],
          `the SELinux type ${se['type']} overrides the container's confinement`,
          'seLinux',
        );
      for (const f of ['user', 'role'] as const)
        if (typeof se[f] === 'string' && se[f] !== '')
          refuse(
            [...at, 'seLinuxOptions', f],
            `a custom SELinux ${f} overrides the container's confinement`,
            'seLinux',
          );
    }
    if (typeof sc['procMount'] === 'string' && sc['procMount'] !== 'Default' && !allow.privileged)
      refuse([...at, 'procMount'], `procMount ${sc['procMount']} unmasks the node's /proc`, 'privileged');
    if (allow.runAsRoot) continue;
    if (sc['runAsNonRoot'] === false)
      refuse([...at, 'runAsNonRoot'], 'runAsNonRoot: false lets the container run as root', 'runAsRoot');
    if (sc['runAsUser'] === 0) refuse([...at, 'runAsUser'], 'runAsUser 0 is root', 'runAsRoot');
  }
}
