import type { PodTemplate } from '../definitions/index.js';
import { restrictPod } from './pod-security.js';

type Obj = Record<string, unknown>;

/** Fields of the algorithm's container that mean nothing to a run to completion (a Job's pod). */
const PROBES = ['readinessProbe', 'livenessProbe', 'startupProbe'] as const;

/** What gpuops sets on the pod it renders, after the spec's `template` is merged in. */
export interface OwnedPod {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  nodeSelector: Record<string, string>;
  /** `affinity` fields gpuops owns (the GPU product's required node affinity), merged over the spec's. */
  affinity?: object;
  tolerations: unknown[];
  /**
   * The policy's `podSecurity.automountServiceAccountToken`: whether the pod may mount a
   * ServiceAccount token when the spec's template asks for one.
   */
  allowServiceAccountToken: boolean;
  /** The algorithm's container as gpuops fills it (name, image, command, args, env, resources). */
  container: Obj & { env?: unknown[]; resources: { requests: Obj; limits: Obj } };
}

/**
 * Merges an Algorithm's `spec.template` (a partial `PodTemplateSpec`, validated by
 * `definitions/rules/pod-template.ts`) into a rendered pod template, in place. The spec's fields
 * come first and gpuops's own fields win over them (validation already refuses a spec that sets
 * one, so nothing the spec says is dropped silently):
 * - labels: the spec's, then gpuops's; annotations: `owned.annotations`, then the spec's;
 * - pod fields (volumes, securityContext, imagePullSecrets, …): the spec's; `tolerations`:
 *   gpuops's (GPU and pool taints) followed by the spec's; `nodeSelector`: gpuops's;
 * - `automountServiceAccountToken`: `false` unless the spec's template says `true` and
 *   `owned.allowServiceAccountToken` (the policy) allows it: a pod gets no API credential it did
 *   not ask for, and none the platform did not grant;
 * - the algorithm's container: the base template's fields, then the spec's `containers[0]`, then
 *   gpuops's; `env` is `spec.env` followed by the template's; `resources` the template's extra
 *   requests/limits (ephemeral storage, hugepages) plus gpuops's;
 * - `benchmark`: the container's readiness, liveness and startup probes are left out (a Job's pod
 *   runs to completion and is never a Service endpoint);
 * - last, the Pod Security "restricted" fields the spec left unsaid (`pod-security.ts`:
 *   `allowPrivilegeEscalation: false`, `capabilities.drop: [ALL]`, `RuntimeDefault` seccomp,
 *   `runAsNonRoot: true`).
 *
 * @param pod       the pod template being rendered (`spec.template` of a Deployment or Job)
 * @param template  the Algorithm's `spec.template`, or undefined
 */
export function applyPodTemplate(
  pod: { metadata?: Obj; spec: Obj & { containers?: Obj[] } },
  template: PodTemplate | undefined,
  owned: OwnedPod,
  benchmark: boolean,
): void {
  const user = structuredClone(template ?? {});
  const userSpec = (user.spec ?? {}) as Obj;
  const userContainer =
    (Array.isArray(userSpec['containers']) ? (userSpec['containers'][0] as Obj) : undefined) ?? {};
  delete userSpec['containers'];
  const meta = (pod.metadata ?? {}) as Obj & {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  pod.metadata = {
    ...meta,
    labels: { ...meta.labels, ...user.metadata?.labels, ...owned.labels },
  };
  const annotations = { ...meta.annotations, ...owned.annotations, ...user.metadata?.annotations };
  if (Object.keys(annotations).length > 0) pod.metadata['annotations'] = annotations;
  const userTolerations = Array.isArray(userSpec['tolerations']) ? userSpec['tolerations'] : [];
  delete userSpec['tolerations'];
  Object.assign(pod.spec, userSpec);
  pod.spec['automountServiceAccountToken'] =
    userSpec['automountServiceAccountToken'] === true && owned.allowServiceAccountToken;
  pod.spec['nodeSelector'] = owned.nodeSelector;
  if (owned.affinity)
    pod.spec['affinity'] = { ...(userSpec['affinity'] as Obj | undefined), ...owned.affinity };
  pod.spec['tolerations'] = [...owned.tolerations, ...userTolerations];
  const base = pod.spec.containers?.[0] ?? {};
  const userResources = (userContainer['resources'] ?? {}) as { requests?: Obj; limits?: Obj };
  const env = [...(owned.container.env ?? []), ...((userContainer['env'] as unknown[] | undefined) ?? [])];
  const container: Obj = {
    ...base,
    ...userContainer,
    ...owned.container,
    env: env.length > 0 ? env : undefined,
    resources: {
      ...userResources,
      requests: { ...userResources.requests, ...owned.container.resources.requests },
      limits: { ...userResources.limits, ...owned.container.resources.limits },
    },
  };
  if (benchmark) for (const probe of PROBES) delete container[probe];
  pod.spec.containers = [container];
  restrictPod(pod.spec);
}
