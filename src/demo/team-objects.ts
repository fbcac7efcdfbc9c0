/**
 * What the demo's team owns beside its specs (examples/gitops-repo/README.md: "the Secrets
 * `model-store-credentials` and `wandb` and the PersistentVolumeClaims `bert-corpus` and
 * `bert-train-checkpoints` in namespace `algorithms`, which you create; gpuops never writes
 * them"). The simulator starts a pod without them; kube-scheduler does not: a pod whose claim does
 * not exist, or is not bound, is Unschedulable ("persistentvolumeclaim … not found", "unbound
 * immediate PersistentVolumeClaims"), so `gpuops demo --real` creates them as the team would.
 *
 * Each claim is bound to a PersistentVolume made for it (`claimRef`, no StorageClass: static
 * provisioning, https://kubernetes.io/docs/concepts/storage/persistent-volumes/#reserving-a-persistentvolume);
 * a `hostPath` no kubelet mounts, since KWOK runs no container. The Secrets hold placeholders.
 */
import type { KubeObject } from '../cluster/index.js';

/** The examples' algorithms' namespace. */
export const DEMO_NAMESPACE = 'algorithms';

/** A claim of the examples: name, size, access mode (as bert-train.yaml's comments describe it). */
const CLAIMS = [
  { name: 'bert-corpus', storage: '500Gi', mode: 'ReadOnlyMany' },
  { name: 'bert-train-checkpoints', storage: '200Gi', mode: 'ReadWriteMany' },
] as const;

/** Secrets of the examples with placeholder values: name → keys. */
const SECRETS: Record<string, string[]> = {
  'model-store-credentials': ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
  wandb: ['api-key'],
};

/**
 * The Namespace, Secrets, PersistentVolumes and PersistentVolumeClaims the examples refer to, in
 * the order to apply them (the Namespace first). Names of the claims and Secrets match the
 * examples' specs (a test reads the specs' references).
 */
export function demoTeamObjects(namespace = DEMO_NAMESPACE): KubeObject[] {
  const out: KubeObject[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }];
  for (const [name, keys] of Object.entries(SECRETS))
    out.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      type: 'Opaque',
      stringData: Object.fromEntries(keys.map((k) => [k, 'demo-placeholder'])),
    });
  for (const c of CLAIMS) {
    const volume = `${namespace}-${c.name}`;
    out.push(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: volume },
        spec: {
          capacity: { storage: c.storage },
          accessModes: [c.mode],
          persistentVolumeReclaimPolicy: 'Retain',
          storageClassName: '',
          hostPath: { path: `/srv/${namespace}/${c.name}` },
          claimRef: { namespace, name: c.name },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: c.name, namespace },
        spec: {
          accessModes: [c.mode],
          storageClassName: '',
          volumeName: volume,
          resources: { requests: { storage: c.storage } },
        },
      },
    );
  }
  return out;
}

/** `namespace/name` of each claim {@link demoTeamObjects} makes. */
export function demoClaims(namespace = DEMO_NAMESPACE): string[] {
  return CLAIMS.map((c) => `${namespace}/${c.name}`);
}
