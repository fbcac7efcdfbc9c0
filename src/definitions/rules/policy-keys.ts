/**
 * The pool label key (also the pool taint's key) must be one gpuops may own (pure). docs/design.md,
 * "Architecture": Git holds only what gpuops owns, never another controller's labels or taints. With
 * `labelKey: kubernetes.io/hostname` and a `NoExecute` taint the Node manifests would relabel and
 * taint every GPU node and evict the GPU operator's DaemonSets.
 *
 * Refused prefixes (the part before `/`): `kubernetes.io` and `k8s.io` and every subdomain of
 * them (`node-role.kubernetes.io`, `node.kubernetes.io`, `topology.kubernetes.io`,
 * `feature.node.kubernetes.io` of Node Feature Discovery, …; Kubernetes reserves these, "Well-Known
 * Labels, Annotations and Taints"), and the keys other node controllers write: `nvidia.com`
 * (GPU Feature Discovery, the GPU operator), `amd.com`, `gpu.intel.com`, `karpenter.sh`,
 * `eks.amazonaws.com`, `cloud.google.com`, `kubernetes.azure.com` and their subdomains.
 */
import type { FieldProblem } from './schema-errors.js';

/** Label key prefixes gpuops never writes, each with its subdomains. */
export const RESERVED_LABEL_PREFIXES = [
  'kubernetes.io',
  'k8s.io',
  'nvidia.com',
  'amd.com',
  'gpu.intel.com',
  'karpenter.sh',
  'eks.amazonaws.com',
  'cloud.google.com',
  'kubernetes.azure.com',
] as const;

/**
 * The owner of a label key's prefix when gpuops must not use it, else null.
 * @example reservedPrefixOf('node-role.kubernetes.io/gpu') === 'kubernetes.io'; reservedPrefixOf('gpuops.dev/pool') === null
 */
export function reservedPrefixOf(key: string): string | null {
  const slash = key.indexOf('/');
  if (slash < 0) return null;
  const prefix = key.slice(0, slash).toLowerCase();
  return RESERVED_LABEL_PREFIXES.find((r) => prefix === r || prefix.endsWith(`.${r}`)) ?? null;
}

/**
 * The problem of `spec.pools.labelKey` in a policy when its prefix is reserved, located at the
 * value; none when the key is absent or not a string (the schema reports that).
 * @param p a parsed Policy document (possibly invalid)
 */
export function labelKeyProblems(p: unknown): FieldProblem[] {
  const key = (p as { spec?: { pools?: { labelKey?: unknown } } } | null)?.spec?.pools?.labelKey;
  if (typeof key !== 'string') return [];
  const owner = reservedPrefixOf(key);
  if (!owner) return [];
  return [
    {
      path: ['spec', 'pools', 'labelKey'],
      at: 'value',
      message: `"${key}" is under ${owner}/, which ${owner === 'kubernetes.io' || owner === 'k8s.io' ? 'Kubernetes reserves' : 'another node controller owns'}; gpuops writes this key (and its taint) on every GPU node: use a prefix of your own, e.g. gpuops.dev/pool`,
    },
  ];
}
