import type { KubeObject } from '../cluster/index.js';
import type { PodTemplate, ResolvedAlgorithm } from '../definitions/index.js';

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One port of a Service (`ServicePort`): `port` and `targetPort` as Kubernetes takes them. */
export interface ServicePort {
  name: string;
  port: number;
  protocol: string;
  /** The container port's name when it has one (the Service follows a renumbered port), else its number. */
  targetPort: string | number;
  appProtocol?: string;
}

/**
 * The Service ports of an algorithm: one per port of its container (`spec.template.spec.containers[0].ports`),
 * in the order the spec lists them, `port` = `containerPort`, the protocol the container port
 * gives (default TCP). A port's name is the container port's name; an unnamed port is named
 * `<protocol>-<number>` in lower case (`tcp-8000`), because a Service with more than one port needs
 * every port named (Kubernetes `ValidateService`), and a name a named port already uses gets
 * `port-<index>` instead. Ports of init containers are left out.
 * Clashing ports (same number and protocol, or same name) never get here: validation refuses
 * them (`definitions/rules/pod-rules.ts`).
 * @returns `[]` when the container declares no port
 */
export function servicePorts(template: PodTemplate | undefined): ServicePort[] {
  const spec = isMap(template?.spec) ? template.spec : {};
  const containers = Array.isArray(spec['containers']) ? spec['containers'] : [];
  const container = isMap(containers[0]) ? containers[0] : {};
  const ports = (Array.isArray(container['ports']) ? container['ports'] : []).filter(isMap);
  const named = new Set(ports.map((p) => p['name']).filter((n): n is string => typeof n === 'string'));
  return ports.flatMap((p, i): ServicePort[] => {
    const port = p['containerPort'];
    if (typeof port !== 'number') return [];
    const protocol = typeof p['protocol'] === 'string' ? p['protocol'] : 'TCP';
    const own = typeof p['name'] === 'string' ? p['name'] : undefined;
    const generated = `${protocol.toLowerCase()}-${port}`;
    const name = own ?? (named.has(generated) ? `port-${i}` : generated);
    const appProtocol = typeof p['appProtocol'] === 'string' ? p['appProtocol'] : undefined;
    return [{ name, port, protocol, targetPort: own ?? port, ...(appProtocol ? { appProtocol } : {}) }];
  });
}

/**
 * The algorithm's v1 Service (type ClusterIP) when its container declares ports, else `null`:
 * named and namespaced as the Deployment, carrying `labels` and the Argo CD sync wave "0", with
 * `selector` = the Deployment's `selector.matchLabels` (`app.kubernetes.io/name` and
 * `gpuops.dev/algorithm`), so it selects exactly the algorithm's pods, never a benchmark Job's
 * (those carry no `app.kubernetes.io/name`). Ports from {@link servicePorts}.
 *
 * @param labels   the labels of everything generated for the algorithm
 * @param selector the Deployment's pod selector
 */
export function renderService(
  alg: ResolvedAlgorithm,
  labels: Record<string, string>,
  selector: Record<string, string>,
): KubeObject | null {
  const ports = servicePorts(alg.spec.template);
  if (ports.length === 0) return null;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: alg.name,
      namespace: alg.namespace,
      labels,
      annotations: { 'argocd.argoproj.io/sync-wave': '0' },
    },
    spec: { type: 'ClusterIP', selector, ports },
  } as KubeObject;
}
