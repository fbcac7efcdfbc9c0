import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { LeaseSpecOut, LeaseView } from './types.js';
import { classifyKubeError } from './kube-errors.js';
import { MANAGED_BY } from '../util/index.js';

/** Reads and writes one `coordination.k8s.io/v1` Lease. Writes carry the read resourceVersion. */
export interface LeaseApi {
  /** The Lease, or null when it does not exist. */
  read(): Promise<LeaseView | null>;
  /** @returns false when another writer won the race (409 Conflict / AlreadyExists) */
  create(spec: LeaseSpecOut): Promise<boolean>;
  /** @returns false when the Lease changed since it was read (409 Conflict) */
  replace(spec: LeaseSpecOut, resourceVersion: string): Promise<boolean>;
}

function toBody(name: string, namespace: string, spec: LeaseSpecOut, resourceVersion?: string): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace,
      ...(resourceVersion ? { resourceVersion } : {}),
      labels: { [MANAGED_BY.key]: MANAGED_BY.value },
    },
    spec: {
      holderIdentity: spec.holderIdentity,
      leaseDurationSeconds: spec.leaseDurationSeconds,
      leaseTransitions: spec.leaseTransitions,
      acquireTime: new V1MicroTime(spec.acquireTime),
      renewTime: new V1MicroTime(spec.renewTime),
    },
  };
}

function iso(value: Date | string | undefined): string | null {
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.toISOString();
}

/**
 * The Lease adapter on `@kubernetes/client-node`.
 * @throws the client's ApiException for errors other than 404 on read and 409 on writes
 */
export function kubeLeaseApi(kc: KubeConfig, namespace: string, name: string): LeaseApi {
  const api = kc.makeApiClient(CoordinationV1Api);
  return {
    async read() {
      try {
        const lease = await api.readNamespacedLease({ name, namespace });
        return {
          holderIdentity: lease.spec?.holderIdentity ?? null,
          leaseDurationSeconds: lease.spec?.leaseDurationSeconds ?? null,
          renewTime: iso(lease.spec?.renewTime),
          acquireTime: iso(lease.spec?.acquireTime),
          leaseTransitions: lease.spec?.leaseTransitions ?? 0,
          resourceVersion: lease.metadata?.resourceVersion ?? '',
        };
      } catch (err) {
        if (classifyKubeError(err).kind === 'not-found') return null;
        throw err;
      }
    },
    async create(spec) {
      try {
        await api.createNamespacedLease({ namespace, body: toBody(name, namespace, spec) });
        return true;
      } catch (err) {
        if (classifyKubeError(err).kind === 'conflict') return false;
        throw err;
      }
    },
    async replace(spec, resourceVersion) {
      try {
        await api.replaceNamespacedLease({
          name,
          namespace,
          body: toBody(name, namespace, spec, resourceVersion),
        });
        return true;
      } catch (err) {
        if (classifyKubeError(err).kind === 'conflict') return false;
        throw err;
      }
    },
  };
}
