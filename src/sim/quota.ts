/**
 * ResourceQuota admission for Pods, as kube-apiserver's `ResourceQuota` admission plugin refuses a
 * pod create (https://kubernetes.io/docs/concepts/policy/resource-quotas/): the namespace's quotas'
 * `spec.hard` against what its pods not yet finished use plus the new pod. Resources counted:
 * `pods` / `count/pods`; `requests.cpu` (or `cpu`), `requests.memory` (or `memory`),
 * `requests.ephemeral-storage` (or `ephemeral-storage`), `limits.cpu`, `limits.memory`,
 * `limits.ephemeral-storage`; and `requests.<extended>` such as `requests.nvidia.com/gpu`. The
 * refusal is the API server's 403 with its words:
 * `pods "web-1" is forbidden: exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=2, limited: requests.nvidia.com/gpu=2`.
 * Scopes and scope selectors are not simulated (every quota applies to every pod).
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import { effectiveRequest } from '../cluster/index.js';
import { isTerminal, parseQuantity } from './controllers/pods.js';
import { SimApiError, type KubeObject, type SimStore } from './types.js';

/** What one pod counts for against a quota's `spec.hard` keys (base units: cores, bytes, counts). */
export function podUsage(pod: KubeObject): Record<string, number> {
  const spec = pod.spec as V1PodSpec | undefined;
  const read = (q: string) => parseQuantity(q);
  const limit = (r: string) =>
    (spec?.containers ?? []).reduce((sum, c) => sum + parseQuantity(c.resources?.limits?.[r]), 0);
  const out: Record<string, number> = { pods: 1, 'count/pods': 1 };
  const names = new Set<string>();
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])])
    for (const r of [...Object.keys(c.resources?.requests ?? {}), ...Object.keys(c.resources?.limits ?? {})])
      names.add(r);
  for (const r of names) {
    const v = effectiveRequest(spec, r, read);
    out[`requests.${r}`] = v;
    if (r === 'cpu' || r === 'memory' || r === 'ephemeral-storage') {
      out[r] = v;
      out[`limits.${r}`] = limit(r);
    }
  }
  return out;
}

/** A quantity as the API server prints it in a quota message (`500m`, `2`, `16Gi`). */
function show(key: string, v: number): string {
  if (key.endsWith('cpu')) return Number.isInteger(v) ? String(v) : `${Math.round(v * 1000)}m`;
  for (const [unit, size] of [
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10],
  ] as const)
    if (v >= size && v % size === 0 && /memory|storage|hugepages/.test(key)) return `${v / size}${unit}`;
  return String(v);
}

/**
 * Refuses the pod when it would take a quota of its namespace past `spec.hard`.
 * @throws SimApiError 403 Forbidden, worded as kube-apiserver
 */
export function admitPod(store: Pick<SimStore, 'list'>, pod: KubeObject): void {
  const ns = pod.metadata.namespace ?? 'default';
  const quotas = store.list('resourcequotas', ns);
  if (quotas.length === 0) return;
  const wanted = podUsage(pod);
  const running = store.list('pods', ns).filter((p) => !isTerminal(p));
  for (const q of quotas) {
    const hard = (q.spec?.hard ?? {}) as Record<string, unknown>;
    const over: string[] = [];
    const parts = { requested: [] as string[], used: [] as string[], limited: [] as string[] };
    for (const key of Object.keys(hard).sort()) {
      const want = wanted[key] ?? 0;
      if (want <= 0) continue;
      const used = running.reduce((sum, p) => sum + (podUsage(p)[key] ?? 0), 0);
      const limit = parseQuantity(hard[key]);
      if (used + want <= limit) continue;
      over.push(key);
      parts.requested.push(`${key}=${show(key, want)}`);
      parts.used.push(`${key}=${show(key, used)}`);
      parts.limited.push(`${key}=${show(key, limit)}`);
    }
    if (over.length > 0) {
      throw new SimApiError(
        403,
        'Forbidden',
        `pods "${pod.metadata.name}" is forbidden: exceeded quota: ${q.metadata.name}, requested: ${parts.requested.join(',')}, used: ${parts.used.join(',')}, limited: ${parts.limited.join(',')}`,
      );
    }
  }
}
