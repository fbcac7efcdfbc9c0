/**
 * managedFields as the API server writes them, for the tests of handing fields over to Git's
 * applier (`src/cluster/field-ownership.ts`): the entry of gpuops's scale patch, and readers of
 * who owns what.
 */
import type { FieldsV1, ManagedFieldsEntry } from '../../src/cluster/field-ownership.js';

/**
 * The entry kube-apiserver 1.37 writes for gpuops's merge patch of a Deployment's `scale`
 * subresource (field manager `gpuops`, operation `Update`): it owns `spec.replicas` only
 * (test/real-cluster/replicas-handover.test.ts reads it so). `over` sets more keys (`time`).
 */
export function gpuopsScaleEntry(over: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry {
  return {
    manager: 'gpuops',
    operation: 'Update',
    apiVersion: 'apps/v1',
    subresource: 'scale',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    ...over,
  };
}

/** True when `entry` owns the field at `path` (`'f:spec', 'f:replicas'`). */
export function owns(entry: ManagedFieldsEntry, ...path: string[]): boolean {
  let at: FieldsV1 | undefined = entry.fieldsV1;
  for (const key of path) at = at?.[key];
  return at !== undefined;
}

/** The entries owning the field at `path`, as `manager/operation[/subresource]`, sorted. */
export function ownersOf(entries: readonly ManagedFieldsEntry[] | undefined, ...path: string[]): string[] {
  return (entries ?? [])
    .filter((e) => owns(e, ...path))
    .map((e) => [e.manager, e.operation, ...(e.subresource ? [e.subresource] : [])].join('/'))
    .sort();
}

/**
 * The entries of managers other than gpuops, without `status` ones (the Deployment controller and
 * KWOK's heartbeats restamp those): what a hand-over must leave as it was.
 */
export function othersThanGpuops(entries: readonly ManagedFieldsEntry[] | undefined): ManagedFieldsEntry[] {
  return (entries ?? []).filter((e) => e.manager !== 'gpuops' && e.subresource !== 'status');
}
