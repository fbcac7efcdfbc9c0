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
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { describeReal, INSTALL, installRbac, startRealHarness, until, type RealHarness } from './harness.js';
import { patchModePolicy, placeServe, storyFiles } from './patch-story.js';

const KEY = 'gpuops.dev/pool';
const policy = patchModePolicy(['  pools:', '    taint: {enabled: true, effect: NoSchedule}']);

type Entry = {
  manager: string;
  operation: string;
  subresource?: string;
  time?: string;
  fieldsV1?: Record<string, unknown>;
};
type Node = {
  metadata: { labels?: Record<string, string>; managedFields?: Entry[] };
  spec?: { taints?: { key: string; value?: string; effect: string }[] };
};

let h: RealHarness;
const node = (name: string) => h.get<Node>(`/api/v1/nodes/${name}`);
const owns = (e: Entry, ...p: string[]) =>
  p.reduce<unknown>((t, k) => (t as Record<string, unknown> | undefined)?.[k], e.fieldsV1) !== undefined;
/** The field managers owning the pool label (managedFields), sorted. */
const labelManagers = (n: Node) =>
  (n.metadata.managedFields ?? [])
    .filter((e) => owns(e, 'f:metadata', 'f:labels', `f:${KEY}`))
    .map((e) => e.manager)
    .sort();
const scaling = (r: PassResult) => r.plan.scaling.find((s) => s.algorithm === 'serve');

describeReal('patch mode hands the pool label it set over to Git’s applier', () => {
  beforeAll(async () => {
    h = await startRealHarness({
      files: storyFiles(policy),
    });
    await h.addNodes([
      { name: 'gpu-a', gpus: 1 },
      { name: 'gpu-s', gpus: 1, labels: { [KEY]: 'short-task' } },
      { name: 'gpu-u', gpus: 1 },
    ]);
    await installRbac(h.kc, path.join(INSTALL, 'components/patch-mode'));
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
      return scaling(pass)?.nodes.includes('gpu-u') && pass;
    });
    expect(r.patches).toContain(`Node gpu-u: labels ${KEY}=short-task`);
    expect(labelManagers(await node('gpu-u'))).toEqual(['gpuops']);
    expect(h.file('main', 'clusters/prod/nodes/gpu-u.yaml')).toMatch(/gpuops\.dev\/pool: short-task/);
    await h.sync();
    const applied = await node('gpu-u');
    expect(applied.metadata.labels?.[KEY]).toBe('short-task');
    expect(labelManagers(applied)).toEqual(['gpuops', 'kustomize-controller']);
  });

  it('the next pass hands the label over: its value and every other manager’s entry stay, the taint stays gpuops’s', async () => {
    const before = await node('gpu-u');
    const r = await h.pass();
    expect(r.patches).toContain(`Node gpu-u: ownership of labels ${KEY} handed to Git’s applier`);
    const after = await node('gpu-u');
    expect(after.metadata.labels?.[KEY]).toBe('short-task');
    expect(labelManagers(after)).toEqual(['kustomize-controller']);
    // KWOK's status heartbeats restamp its `status` entry: the entries of the Node itself are compared.
    const others = (n: Node) =>
      (n.metadata.managedFields ?? []).filter((e) => e.manager !== 'gpuops' && e.subresource !== 'status');
    expect(others(after)).toEqual(others(before));
    const gpuops = (after.metadata.managedFields ?? []).filter((e) => e.manager === 'gpuops');
    expect(gpuops.some((e) => owns(e, 'f:spec', 'f:taints'))).toBe(true);
    expect(after.spec?.taints).toContainEqual({ key: KEY, value: 'short-task', effect: 'NoSchedule' });
    // Nothing left to hand over, and Flux's next apply changes nothing.
    expect((await h.pass()).patches.filter((p) => p.includes('handed'))).toEqual([]);
    await h.sync();
    expect(labelManagers(await node('gpu-u'))).toEqual(['kustomize-controller']);
  });

  it('a person removes the label in Git: Flux’s apply removes it from the Node, and gpuops its pool taint', async () => {
    const file = h.file('main', 'clusters/prod/nodes/gpu-u.yaml');
    expect(file).toMatch(/gpuops\.dev\/pool: short-task\n/);
    h.push({ 'clusters/prod/nodes/gpu-u.yaml': file!.replace(/ *gpuops\.dev\/pool: short-task\n/, '') });
    await h.sync();
    const removed = await node('gpu-u');
    // Before the hand-over: `short-task`, kept by gpuops's ownership.
    expect(removed.metadata.labels?.[KEY]).toBeUndefined();
    expect(labelManagers(removed)).toEqual([]);
    // No pool, no pool taint: gpuops removes its own entry.
    const r = await h.pass();
    expect(r.patches).toContain(`Node gpu-u: no taint ${KEY}`);
    expect((await node('gpu-u')).spec?.taints ?? []).not.toContainEqual(
      expect.objectContaining({ key: KEY }),
    );
  });
});
