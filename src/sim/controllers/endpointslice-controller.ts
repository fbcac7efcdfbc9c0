/**
 * The simulated EndpointSlice controller (discovery.k8s.io/v1): for every Service with a
 * selector, one EndpointSlice `<service>-<5 chars>` labelled `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`, owned by the
 * Service, listing each pod of its namespace whose labels match the selector and that has an IP:
 * `addresses` [the pod IP], `conditions` `ready` (Ready and not terminating), `serving` (Ready),
 * `terminating`, `nodeName` and `targetRef`. Its ports are the Service's, a named `targetPort`
 * resolved against the pod's container ports as kube-proxy would. A slice whose Service is gone
 * is deleted. Rules: https://kubernetes.io/docs/concepts/services-networking/endpoint-slices/
 * (one slice holds up to 100 endpoints by default; the simulator keeps one slice per Service).
 * A pod relabelled into a Service's selector (a claimed standby) becomes its endpoint in the
 * same pass.
 */
import { sameJson } from '../json-equal.js';
import { matchLabels } from '../selectors.js';
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import { ChangeGate } from './gate.js';
import { nameSuffix } from './names.js';
import { selectorRequirements } from './pod-claims.js';
import { isPodReady, isTerminal, ownerReference } from './pods.js';
import { readAll } from './read.js';

const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const CONTROLLER = 'endpointslice-controller.k8s.io';
const SERVICE_NAME = 'kubernetes.io/service-name';

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
}

/** The EndpointSlice a Service's matching `pods` make (see the module comment). */
export function endpointSliceOf(service: KubeObject, pods: readonly KubeObject[]): KubeObject {
  const reqs = selectorRequirements({ matchLabels: service.spec?.selector ?? {} }) ?? [];
  const members = pods
    .filter((p) => p.metadata.namespace === service.metadata.namespace && !isTerminal(p))
    .filter((p) => typeof p.status?.podIP === 'string' && matchLabels(reqs, p.metadata.labels))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const ports = ((service.spec?.ports ?? []) as ServicePort[]).map((sp) => ({
    ...(sp.name ? { name: sp.name } : {}),
    port: resolvePort(sp, members[0]),
    protocol: sp.protocol ?? 'TCP',
  }));
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${service.metadata.name}-${nameSuffix(service.metadata.uid ?? service.metadata.name)}`,
      namespace: service.metadata.namespace,
      labels: { [SERVICE_NAME]: service.metadata.name, [MANAGED_BY]: CONTROLLER },
      ownerReferences: [ownerReference(service)],
    },
    addressType: 'IPv4',
    endpoints: members.map((p) => ({
      addresses: [p.status.podIP as string],
      conditions: {
        ready: isPodReady(p) && !p.metadata.deletionTimestamp,
        serving: isPodReady(p),
        terminating: Boolean(p.metadata.deletionTimestamp),
      },
      ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName as string } : {}),
      targetRef: {
        kind: 'Pod',
        namespace: p.metadata.namespace,
        name: p.metadata.name,
        uid: p.metadata.uid ?? '',
      },
    })),
    ports,
  } as KubeObject;
}

/** A Service port's target on a pod: its number, or the pod's container port of that name (else the port). */
function resolvePort(sp: ServicePort, pod: KubeObject | undefined): number {
  if (typeof sp.targetPort === 'number') return sp.targetPort;
  if (typeof sp.targetPort !== 'string') return sp.port;
  const containers = (pod?.spec?.containers ?? []) as {
    ports?: { name?: string; containerPort: number }[];
  }[];
  for (const c of containers)
    for (const p of c.ports ?? []) if (p.name === sp.targetPort) return p.containerPort;
  return sp.port;
}

/** The EndpointSlice controller as a {@link SimController}. */
export function endpointSliceController(): SimController {
  const gate = new ChangeGate();
  return {
    name: 'endpointslice',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const services = readAll(store, 'services').filter(
        (s) => s.spec?.selector && Object.keys(s.spec.selector as object).length > 0,
      );
      const slices = readAll(store, 'endpointslices').filter(
        (s) => s.metadata.labels?.[MANAGED_BY] === CONTROLLER,
      );
      const pods = services.length > 0 ? readAll(store, 'pods') : [];
      const wanted = new Set<string>();
      for (const svc of services) {
        const slice = endpointSliceOf(svc, pods);
        wanted.add(`${slice.metadata.namespace}/${slice.metadata.name}`);
        writeSlice(store, slice);
      }
      for (const s of slices)
        if (!wanted.has(`${s.metadata.namespace}/${s.metadata.name}`))
          store.delete('endpointslices', s.metadata.namespace, s.metadata.name);
      gate.close(rv);
    },
  };
}

/** Creates `slice` or updates the stored one when its contents differ. */
function writeSlice(store: SimStore, slice: KubeObject): void {
  const fresh = store.get('endpointslices', slice.metadata.namespace, slice.metadata.name);
  try {
    if (!fresh) store.create('endpointslices', slice);
    else if (!sameJson(contents(fresh), contents(slice)))
      store.update('endpointslices', {
        ...fresh,
        ...contents(slice),
        metadata: { ...fresh.metadata, labels: slice.metadata.labels },
      });
  } catch (err) {
    if (!(err instanceof SimApiError)) throw err; // changed meanwhile: the next pass works on the current object
  }
}

function contents(s: KubeObject): Record<string, unknown> {
  return { addressType: s.addressType, endpoints: s.endpoints, ports: s.ports };
}
