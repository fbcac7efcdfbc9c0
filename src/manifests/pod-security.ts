/**
 * What gpuops writes into every pod it renders (the Deployment's and the benchmark Job's) so that
 * it meets the Pod Security Standards' "restricted" profile unless the spec asked for an
 * allowance the policy grants (https://kubernetes.io/docs/concepts/security/pod-security-standards/,
 * "Restricted"). Validation (`definitions/rules/pod-security.ts`, `pod-restricted.ts`) has already
 * refused what the policy does not allow; this fills in what a spec leaves unsaid:
 *
 * - the pod: `securityContext.seccompProfile: {type: RuntimeDefault}` unless the pod sets a
 *   profile; `securityContext.runAsNonRoot: true` unless the pod sets it or any container asks for
 *   root (`runAsNonRoot: false`, `runAsUser: 0`, which the policy's `runAsRoot` allowed);
 * - every container and init container: `allowPrivilegeEscalation: false` unless it sets the field
 *   or is privileged or adds `SYS_ADMIN` (the API server refuses `false` beside either);
 *   `capabilities.drop` holds `ALL` (added after the spec's own drops).
 *
 * A Windows pod (`os.name: windows`) is left as it is: these fields are Linux's, and the API server
 * refuses them there. Pure; changes `pod` in place.
 */
type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True when a securityContext asks to run as root. */
const asksRoot = (sc: unknown) => isMap(sc) && (sc['runAsNonRoot'] === false || sc['runAsUser'] === 0);

/**
 * Fills the restricted profile's fields into a rendered `PodSpec` (see the module comment).
 * @param pod the rendered pod's `spec`, after the spec's template was merged in
 */
export function restrictPod(pod: Obj & { containers?: Obj[]; initContainers?: unknown }): void {
  if (isMap(pod['os']) && pod['os']['name'] === 'windows') return;
  const containers = [
    ...(pod.containers ?? []),
    ...(Array.isArray(pod.initContainers) ? pod.initContainers.filter(isMap) : []),
  ];
  const sc: Obj = isMap(pod['securityContext']) ? { ...pod['securityContext'] } : {};
  sc['seccompProfile'] ??= { type: 'RuntimeDefault' };
  const root = asksRoot(sc) || containers.some((c) => asksRoot(c['securityContext']));
  if (!root) sc['runAsNonRoot'] ??= true;
  pod['securityContext'] = sc;
  for (const c of containers) {
    const own: Obj = isMap(c['securityContext']) ? { ...c['securityContext'] } : {};
    const caps: Obj = isMap(own['capabilities']) ? { ...own['capabilities'] } : {};
    const add = Array.isArray(caps['add']) ? caps['add'].map((a) => String(a).toUpperCase()) : [];
    const escalates =
      own['privileged'] === true || add.some((a) => a === 'SYS_ADMIN' || a === 'CAP_SYS_ADMIN');
    if (!escalates) own['allowPrivilegeEscalation'] ??= false;
    const drop = Array.isArray(caps['drop']) ? caps['drop'] : [];
    caps['drop'] = drop.some((d) => String(d).toUpperCase() === 'ALL') ? drop : [...drop, 'ALL'];
    own['capabilities'] = caps;
    c['securityContext'] = own;
  }
}
