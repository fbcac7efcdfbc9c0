/**
 * Patch mode hands a Deployment's `spec.replicas` over to Git's applier, on the real control plane
 * with Flux. gpuops scales `serve` 1 → 2 itself (a merge patch of the `scale` subresource, field
 * manager `gpuops`: the Deployment's managedFields get a `gpuops`/`Update`/`scale` entry owning
 * `spec.replicas`) after committing the same replicas. Flux skips a file with no drift, so a
 * person's change of the same file (an annotation) makes its next apply (server-side apply as
 * `kustomize-controller`, with `replicas: 2`) own `spec.replicas` too. Server-side apply removes a
 * field an applier stops applying only when no other manager owns it: with gpuops's scale entry
 * still an owner, a person's removal of `replicas` from Git (to hand it to an HPA) left 2 on the
 * Deployment instead of the default 1 (before `handDeploymentsToGit` in `pass/write.ts` the last
 * two tests failed so; see docs/real-cluster.md). Now the pass after Flux's apply drops
 * `spec.replicas` from gpuops's entries (every other entry as it was, the value kept), so Git alone
 * decides it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { othersThanGpuops } from '../support/managed-fields.js';
import { describeReal, until, type RealHarness } from './harness.js';
import {
  patchModePolicy,
  placeServe,
  replicasOwners,
  serveDeployment,
  serveScaling,
  startPatchStory,
} from './patch-story.js';

const FILE = 'clusters/prod/algorithms/serve/deployment.yaml';
let h: RealHarness;
const deployment = () => serveDeployment(h);

describeReal('patch mode hands the replicas it set over to Git’s applier', () => {
  beforeAll(async () => {
    h = await startPatchStory(
      patchModePolicy(),
      [
        { name: 'gpu-a', gpus: 1 },
        { name: 'gpu-s', gpus: 3, labels: { 'gpuops.dev/pool': 'short-task' } },
      ],
      { patchModeRbac: true },
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('gpuops scales serve by commit and scale patch; Flux’s apply of a changed file then owns replicas too', async () => {
    await placeServe(h);
    expect(replicasOwners(await deployment())).toEqual(['kustomize-controller/Apply']);
    // One replica 100 % busy: 2 replicas, both on gpu-s's 3 GPUs (no node moves).
    h.local.load.setLoad('serve', 100);
    const r = await until('a scale-up is decided', async () => {
      const pass = await h.pass();
      return serveScaling(pass)?.action === 'scale-up' && pass;
    });
    expect(serveScaling(r)?.replicas).toEqual({ from: 1, to: 2 });
    expect(r.patches).toContain('Deployment algorithms/serve: replicas 2');
    expect(replicasOwners(await deployment())).toEqual(['gpuops/Update/scale']);
    const file = h.file('main', FILE)!;
    expect(file).toMatch(/\n {2}replicas: 2\n/);
    // A person's change of the same file: Flux finds drift and applies the whole file, replicas too.
    h.push({
      [FILE]: file.replace(/\nmetadata:\n/, '\nmetadata:\n  annotations: {example.com/note: hpa-next}\n'),
    });
    await h.sync();
    const applied = await deployment();
    expect(applied.spec.replicas).toBe(2);
    expect(replicasOwners(applied)).toEqual(['gpuops/Update/scale', 'kustomize-controller/Apply']);
  });

  it('the next pass hands replicas over: the value and every other manager’s entry stay', async () => {
    const before = await deployment();
    const r = await h.pass();
    expect(r.patches).toContain(
      'Deployment algorithms/serve: ownership of spec.replicas handed to Git’s applier',
    );
    const after = await deployment();
    expect(after.spec.replicas).toBe(2);
    expect(replicasOwners(after)).toEqual(['kustomize-controller/Apply']);
    // The Deployment controller restamps its `status` entry: the others are compared.
    expect(othersThanGpuops(after.metadata.managedFields)).toEqual(
      othersThanGpuops(before.metadata.managedFields),
    );
    expect((after.metadata.managedFields ?? []).filter((e) => e.manager === 'gpuops')).toEqual([]);
    // Nothing left to hand over.
    expect((await h.pass()).patches.filter((p) => p.includes('handed'))).toEqual([]);
  });

  it('a person removes replicas from Git (for an HPA): Flux’s apply leaves the field to the default', async () => {
    const file = h.file('main', FILE)!;
    expect(file).toMatch(/\n {2}replicas: 2\n/);
    h.push({ [FILE]: file.replace(/\n {2}replicas: 2\n/, '\n') });
    await h.sync();
    const removed = await deployment();
    // Before the hand-over: 2, kept by gpuops's scale entry.
    expect(removed.spec.replicas).toBe(1);
    expect(replicasOwners(removed)).toEqual([]);
  });
});
