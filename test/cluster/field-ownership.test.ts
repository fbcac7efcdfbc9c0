/**
 * Handing fields to Git's applier (`src/cluster/field-ownership.ts`), on managedFields as the API
 * server writes them for a Node that gpuops labelled with a merge patch and Flux then applied.
 */
import { describe, expect, it } from 'vitest';
import {
  DEPLOYMENT_SCOPE,
  describeField,
  releaseShared,
  sharedWithApplier,
  type ManagedFieldsEntry,
} from '../../src/cluster/field-ownership.js';
import { reduceNode } from '../../src/cluster/snapshot.js';
import { gpuopsScaleEntry } from '../support/managed-fields.js';

const POOL = ['f:metadata', 'f:labels', 'f:gpuops.dev/pool'];
const flux = (): ManagedFieldsEntry => ({
  manager: 'kustomize-controller',
  operation: 'Apply',
  apiVersion: 'v1',
  time: '2026-12-07T04:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: {
    'f:metadata': {
      'f:annotations': { 'f:gpuops.dev/moved-by': {} },
      'f:labels': { 'f:app.kubernetes.io/managed-by': {}, 'f:gpuops.dev/pool': {} },
    },
  },
});
const gpuops = (): ManagedFieldsEntry => ({
  manager: 'gpuops',
  operation: 'Update',
  apiVersion: 'v1',
  time: '2026-12-07T03:59:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: {
    'f:metadata': { 'f:labels': { 'f:gpuops.dev/pool': {} } },
    'f:spec': { 'f:taints': {} },
  },
});
const operator = (): ManagedFieldsEntry => ({
  manager: 'gpu-operator',
  operation: 'Apply',
  apiVersion: 'v1',
  fieldsV1: { 'f:metadata': { 'f:labels': { 'f:gpuops.dev/pool': {}, 'f:nvidia.com/gpu.present': {} } } },
});

describe('sharedWithApplier', () => {
  it('finds the label gpuops and Flux both own, never spec.taints', () => {
    expect(sharedWithApplier([operator(), gpuops(), flux()], 'gpuops')).toEqual([POOL]);
  });

  it('nothing while Flux does not own it, or only a manager that is not Git’s applier does', () => {
    const fluxOther = flux();
    fluxOther.fieldsV1 = { 'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/managed-by': {} } } };
    expect(sharedWithApplier([gpuops(), fluxOther], 'gpuops')).toEqual([]);
    expect(sharedWithApplier([gpuops(), operator()], 'gpuops')).toEqual([]);
    // Flux's manager with an Update (not an apply): no removal of Git's would reach the field.
    expect(sharedWithApplier([gpuops(), { ...flux(), operation: 'Update' }], 'gpuops')).toEqual([]);
    expect(sharedWithApplier(undefined, 'gpuops')).toEqual([]);
    expect(sharedWithApplier([flux()], 'gpuops')).toEqual([]);
  });

  it('Argo CD’s applier counts, and gpuops’s entry of the scale subresource is not the Node’s', () => {
    expect(sharedWithApplier([gpuops(), { ...flux(), manager: 'argocd-controller' }], 'gpuops')).toEqual([
      POOL,
    ]);
    expect(sharedWithApplier([{ ...gpuops(), subresource: 'status' }, flux()], 'gpuops')).toEqual([]);
  });
});

describe('releaseShared', () => {
  it('drops the shared label from gpuops’s entry only; the others stay as they were, in place', () => {
    const entries = [operator(), gpuops(), flux()];
    const out = releaseShared(entries, 'gpuops');
    expect(out?.released).toEqual([POOL]);
    expect(out?.entries).toEqual([
      operator(),
      { ...gpuops(), fieldsV1: { 'f:spec': { 'f:taints': {} } } },
      flux(),
    ]);
    // The input is not changed.
    expect(entries[1]).toEqual(gpuops());
  });

  it('an entry left with no field goes; a map gpuops made (`.`) stays gpuops’s unless Flux owns it too', () => {
    const labelOnly: ManagedFieldsEntry = {
      ...gpuops(),
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:gpuops.dev/pool': {} } } },
    };
    expect(releaseShared([labelOnly, flux()], 'gpuops')?.entries).toEqual([
      { ...labelOnly, fieldsV1: { 'f:metadata': { 'f:labels': { '.': {} } } } },
      flux(),
    ]);
    const bare = { ...gpuops(), fieldsV1: { 'f:metadata': { 'f:labels': { 'f:gpuops.dev/pool': {} } } } };
    expect(releaseShared([bare, flux()], 'gpuops')?.entries).toEqual([flux()]);
  });

  it('null when nothing is shared: nothing to write', () => {
    expect(releaseShared([gpuops(), operator()], 'gpuops')).toBeNull();
    expect(releaseShared(undefined, 'gpuops')).toBeNull();
  });
});

describe('a Deployment’s replicas, written through `scale` (DEPLOYMENT_SCOPE)', () => {
  const REPLICAS = ['f:spec', 'f:replicas'];
  // As kube-apiserver 1.37 wrote them (test/real-cluster/replicas-handover.test.ts): Flux's apply
  // of the file, gpuops's scale patch, the Deployment controller's status.
  const fluxApply = (): ManagedFieldsEntry => ({
    manager: 'kustomize-controller',
    operation: 'Apply',
    apiVersion: 'apps/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:replicas': {}, 'f:template': {} },
    },
  });
  const scale = () => gpuopsScaleEntry();
  const status = (): ManagedFieldsEntry => ({
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'apps/v1',
    subresource: 'status',
    fieldsV1: { 'f:status': { 'f:replicas': {} } },
  });

  it('the scale entry shares spec.replicas with Flux within the scope, not outside it', () => {
    expect(
      sharedWithApplier([fluxApply(), scale(), status()], 'gpuops', undefined, DEPLOYMENT_SCOPE),
    ).toEqual([REPLICAS]);
    // A Node's scope reads gpuops's entries of the main resource alone.
    expect(sharedWithApplier([fluxApply(), scale()], 'gpuops')).toEqual([]);
    // Nothing while Flux skipped the file (no drift): gpuops alone owns replicas.
    expect(sharedWithApplier([scale(), status()], 'gpuops', undefined, DEPLOYMENT_SCOPE)).toEqual([]);
  });

  it('releaseShared drops the scale entry (its only field); Flux’s and the status entries stay in place', () => {
    const out = releaseShared([fluxApply(), scale(), status()], 'gpuops', undefined, DEPLOYMENT_SCOPE);
    expect(out).toEqual({ entries: [fluxApply(), status()], released: [REPLICAS] });
    expect(describeField(out!.released[0]!)).toBe('spec.replicas');
  });

  it('another manager’s scale entry (an HPA’s) is never touched', () => {
    const hpa = { ...scale(), manager: 'horizontal-pod-autoscaler' };
    expect(releaseShared([fluxApply(), hpa], 'gpuops', undefined, DEPLOYMENT_SCOPE)).toBeNull();
  });
});

describe('reduceNode and describeField', () => {
  it('marks a Node whose label gpuops shares with Flux, and only such a Node', () => {
    const node = (managedFields: ManagedFieldsEntry[]) =>
      reduceNode(
        { metadata: { name: 'gpu-u', managedFields: managedFields as never } },
        { warnings: [], quantities: new Map() },
      );
    expect(node([gpuops(), flux()]).sharedWithGit).toBe(true);
    expect('sharedWithGit' in node([gpuops(), operator()])).toBe(false);
  });

  it('names a label and a spec field plainly', () => {
    expect(describeField(POOL)).toBe('labels gpuops.dev/pool');
    expect(describeField(['f:spec', 'f:replicas'])).toBe('spec.replicas');
  });
});
