import type { AlgorithmSpec, PolicySpec } from '../types.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';
import { GPUOPS, MANAGED_BY, VENDORS } from '../../util/index.js';

/**
 * Every vendor's GPU resource (`nvidia.com/gpu`, `amd.com/gpu`: each device plugin's); gpuops alone
 * sets the algorithm's vendor's from `spec.resources.gpus`, and a template that asked another
 * vendor's GPUs would take GPUs gpuops neither places nor counts.
 */
export const GPU_RESOURCES: ReadonlySet<string> = new Set(VENDORS.map((v) => v.resource));

/** Pod fields gpuops sets itself, with why; a spec that sets one is told so. */
const OWNED_POD_FIELDS: Record<string, string> = {
  nodeSelector: "gpuops pins the pod to its pool (the policy's pools.labelKey) and GPU product",
  nodeName: 'gpuops pins the pod to its pool; the scheduler picks the node',
  restartPolicy: "the Deployment's pods restart Always and the benchmark Job's Never",
  activeDeadlineSeconds: "a benchmark run's deadline is spec.benchmark.timeoutSeconds",
  ephemeralContainers: 'ephemeral containers are added to running pods (kubectl debug), not to templates',
};

/** Fields of the algorithm's container that the spec sets elsewhere. */
const OWNED_CONTAINER_FIELDS: Record<string, string> = {
  name: 'gpuops names the container (the algorithm\'s name; "benchmark" in the benchmark Job)',
  image: 'set spec.image',
  command: 'set spec.command',
  args: 'set spec.args (and spec.benchmark.args for the benchmark)',
};

/** Label keys gpuops selects and groups on; a pod template may not set them. */
export function ownedLabelKey(key: string, policy: PolicySpec): boolean {
  return (
    key === policy.pools.labelKey ||
    key.startsWith(GPUOPS.prefix) ||
    key === 'app.kubernetes.io/name' ||
    key === MANAGED_BY.key ||
    key === 'app.kubernetes.io/component'
  );
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The fields of `spec.template` that gpuops owns and a spec set anyway: each is an error naming
 * the field and where its value comes from, never silently dropped. Owned: `nodeSelector`,
 * `nodeName` and `affinity.nodeAffinity` (the pool and the GPU product), `restartPolicy`,
 * `activeDeadlineSeconds`, the selector labels (`app.kubernetes.io/name`, `managed-by`,
 * `component`, `gpuops.dev/*`, the pool label key), the algorithm container's `name`, `image`,
 * `command`, `args`, every vendor's GPU resource (`nvidia.com/gpu`, `amd.com/gpu`) in any
 * container's requests or limits, whatever `podSecurity.extendedResources` allows, and `cpu`/`memory`
 * when `spec.resources` sets them. `containers` holds at most the one algorithm container.
 *
 * @param template the value of `spec.template` (a mapping; the Algorithm schema checked that)
 */
export function ownedFieldProblems(
  template: Record<string, unknown>,
  spec: AlgorithmSpec,
  policy: PolicySpec,
): FieldProblem[] {
  const out: FieldProblem[] = [];
  const owned = (path: PathSegment[], why: string) =>
    out.push({ path: ['spec', 'template', ...path], at: 'key', message: `gpuops sets this field: ${why}` });
  const meta = template['metadata'];
  const labels = isMap(meta) && isMap(meta['labels']) ? meta['labels'] : {};
  for (const key of Object.keys(labels)) {
    if (ownedLabelKey(key, policy))
      owned(['metadata', 'labels', key], "gpuops selects the algorithm's pods on it");
  }
  const pod = template['spec'];
  if (!isMap(pod)) return out;
  for (const [field, why] of Object.entries(OWNED_POD_FIELDS)) if (field in pod) owned(['spec', field], why);
  if (isMap(pod['affinity']) && 'nodeAffinity' in pod['affinity']) {
    owned(['spec', 'affinity', 'nodeAffinity'], OWNED_POD_FIELDS['nodeSelector']!);
  }
  for (const list of ['containers', 'initContainers'] as const) {
    const items = Array.isArray(pod[list]) ? (pod[list] as unknown[]) : [];
    items.forEach((c, i) => {
      if (!isMap(c)) return;
      const main = list === 'containers' && i === 0;
      if (list === 'containers' && i > 0) {
        owned(
          ['spec', list, i],
          "the pod runs one container, the algorithm's; put helpers in initContainers (a sidecar with restartPolicy: Always)",
        );
        return;
      }
      if (main)
        for (const [field, why] of Object.entries(OWNED_CONTAINER_FIELDS))
          if (field in c) owned(['spec', list, i, field], why);
      const resources = isMap(c['resources']) ? c['resources'] : {};
      for (const kind of ['requests', 'limits']) {
        const r = resources[kind];
        if (!isMap(r)) continue;
        for (const gpu of Object.keys(r).filter((k) => GPU_RESOURCES.has(k)))
          owned(
            ['spec', list, i, 'resources', kind, gpu],
            'GPUs are spec.resources.gpus, requested and limited by gpuops',
          );
        for (const k of ['cpu', 'memory'] as const) {
          if (main && k in r && spec.resources[k] !== undefined)
            owned(['spec', list, i, 'resources', kind, k], `set by spec.resources.${k}`);
        }
      }
    });
  }
  return out;
}
