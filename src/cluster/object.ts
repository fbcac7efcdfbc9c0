/**
 * The one shape of a Kubernetes object as JSON in gpuops: what the renderer emits, what the
 * Argo-CD-like applier reads from a GitOps folder, what the simulated API server stores. Plain JSON
 * (timestamps are RFC 3339 strings), unlike client-node's `KubernetesObject`, whose fields are all
 * optional and whose `V1ObjectMeta` carries `Date`s. A manifest may be partial (a Node with only
 * its name and labels); fields the server sets (`uid`, `resourceVersion` …) are optional.
 * `Spec` and `Status` type `spec` and `status` where the caller knows them (default `unknown`).
 */
export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
  [key: string]: unknown;
}

/** `metadata` of a {@link KubeObject} (the fields of `ObjectMeta` gpuops reads or writes). */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** RFC 3339. */
  creationTimestamp?: string;
  /** RFC 3339. */
  deletionTimestamp?: string;
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** One `metadata.ownerReferences` entry. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}
