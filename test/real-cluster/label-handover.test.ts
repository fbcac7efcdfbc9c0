/**
 * Patch mode hands a moved node's pool label over to Git's applier, on the real control plane
 * with Flux. gpuops moves `gpu-u` into `short-task` itself (a merge patch, field manager `gpuops`)
 * after committing the Node file; Flux's next apply (server-side apply as `kustomize-controller`,
 * the file's moved-by annotations are new, so it applies) then owns the label too. Server-side
 * apply removes a field an applier stops applying only when no other manager owns it: with
 * gpuops's manager still an owner, a person's removal of the label in Git left it on the Node
 * (with the hand-over call removed from `pass/write.ts` the last test should fail: the label stays
 * `short-task`; see docs/real-cluster.md, open items). Now the pass after Flux's apply drops the label from gpuops's own managedFields
 * entry (every other entry as it was, the label's value kept), so Git alone decides it, and the
 * pool taint gpuops set stays gpuops's (Git never holds taints).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { othersThanGpuops, owns, ownersOf } from '../support/managed-fields.js';
import { describeReal, until, type RealHarness } from './harness.js';
import { patchModePolicy, placeServe, serveScaling, startPatchStory } from './patch-story.js';
import type { ManagedFieldsEntry } from '../../src/cluster/field-ownership.js';

const KEY = 'gpuops.dev/pool';
const policy = patchModePolicy(['  pools:', '    taint: {enabled: true, effect: NoSchedule}']);

type Node = {
  metadata: { labels?: Record<string, string>; managedFields?: ManagedFieldsEntry[] };
  spec?: { taints?: { key: string; value?: string; effect: string }[] };
};

let h: RealHarness;
const node = (name: string) => h.get<Node>(`/api/v1/nodes/${name}`);
/** The entries owning the pool label, as `manager/operation[/subresource]`, sorted. */
const labelOwners = (n: Node) => ownersOf(n.metadata.managedFields, 'f:metadata', 'f:labels', `f:${KEY}`);

describeReal('patch mode hands the pool label it set over to Git’s applier', () => {
  beforeAll(async () => {
    h = await startPatchStory(
      policy,
      [
        { name: 'gpu-a', gpus: 1 },
        { name: 'gpu-s', gpus: 1, labels: { [KEY]: 'short-task' } },
        { name: 'gpu-u', gpus: 1 },
      ],
      { patchModeRbac: true },
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('gpuops moves gpu-u by patch and commit; Flux’s apply then owns the label too', async () => {
    await placeServe(h);
    expect((await node('gpu-u')).metadata.labels?.[KEY]).toBe('unused');
    // gpu-s's one GPU is taken: the scale-up moves gpu-u in (patched after the commit).
    h.local.load.setLoad('serve', 100);
    const r = await until('a scale-up moving gpu-u is decided', async () => {
      const pass = await h.pass();
      return serveScaling(pass)?.nodes.includes('gpu-u') && pass;
    });
    expect(r.patches).toContain(`Node gpu-u: labels ${KEY}=short-task`);
    expect(labelOwners(await node('gpu-u'))).toEqual(['gpuops/Update']);
    expect(h.file('main', 'clusters/prod/nodes/gpu-u.yaml')).toMatch(/gpuops\.dev\/pool: short-task/);
    await h.sync();
    const applied = await node('gpu-u');
    expect(applied.metadata.labels?.[KEY]).toBe('short-task');
    expect(labelOwners(applied)).toEqual(['gpuops/Update', 'kustomize-controller/Apply']);
  });

  it('the next pass hands the label over: its value and every other manager’s entry stay, the taint stays gpuops’s', async () => {
    const before = await node('gpu-u');
    const r = await h.pass();
    expect(r.patches).toContain(`Node gpu-u: ownership of labels ${KEY} handed to Git’s applier`);
    const after = await node('gpu-u');
    expect(after.metadata.labels?.[KEY]).toBe('short-task');
    expect(labelOwners(after)).toEqual(['kustomize-controller/Apply']);
    // KWOK's status heartbeats restamp its `status` entry: the entries of the Node itself are compared.
    expect(othersThanGpuops(after.metadata.managedFields)).toEqual(
      othersThanGpuops(before.metadata.managedFields),
    );
    const gpuops = (after.metadata.managedFields ?? []).filter((e) => e.manager === 'gpuops');
    expect(gpuops.some((e) => owns(e, 'f:spec', 'f:taints'))).toBe(true);
    expect(after.spec?.taints).toContainEqual({ key: KEY, value: 'short-task', effect: 'NoSchedule' });
    // Nothing left to hand over, and Flux's next apply changes nothing.
    expect((await h.pass()).patches.filter((p) => p.includes('handed'))).toEqual([]);
    await h.sync();
    expect(labelOwners(await node('gpu-u'))).toEqual(['kustomize-controller/Apply']);
  });

  it('a person removes the label in Git: Flux’s apply removes it from the Node, and gpuops its pool taint', async () => {
    const file = h.file('main', 'clusters/prod/nodes/gpu-u.yaml');
    expect(file).toMatch(/gpuops\.dev\/pool: short-task\n/);
    h.push({ 'clusters/prod/nodes/gpu-u.yaml': file!.replace(/ *gpuops\.dev\/pool: short-task\n/, '') });
    await h.sync();
    const removed = await node('gpu-u');
    // Before the hand-over: `short-task`, kept by gpuops's ownership.
    expect(removed.metadata.labels?.[KEY]).toBeUndefined();
    expect(labelOwners(removed)).toEqual([]);
    // No pool, no pool taint: gpuops removes its own entry.
    const r = await h.pass();
    expect(r.patches).toContain(`Node gpu-u: no taint ${KEY}`);
    expect((await node('gpu-u')).spec?.taints ?? []).not.toContainEqual(
      expect.objectContaining({ key: KEY }),
    );
  });
});
