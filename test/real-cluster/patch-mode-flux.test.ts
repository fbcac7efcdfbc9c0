/**
 * Patch mode beside Flux on the real control plane, with the shipped RBAC:
 * - without the patch-mode component the shipped ClusterRole grants no `patch` on
 *   `deployments/scale` nor `get` on `deployments`: gpuops's pass reports each of the API server's
 *   403s (the scale patch, the hand-over's read) as one line naming the verb and resource, and no
 *   stack;
 * - with it, gpuops commits the new replicas to `main` and patches the scale subresource (field
 *   manager `gpuops`); Flux's next reconcile (server-side apply as `kustomize-controller`) applies
 *   `main`, which holds the same replicas, so gpuops's `spec.replicas` survives it, and a person's field (an annotation set
 *   with `kubectl apply --server-side --field-manager=team-vision`) survives both gpuops's patch
 *   and Flux's apply;
 * - a field whose manager is `kubectl` (plain `kubectl apply --server-side`) is taken over and
 *   removed by Flux's next reconcile, as kustomize-controller documents ("kubectl edits are rolled
 *   back"): a person's change beside Flux needs its own field manager, with or without gpuops.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { git } from '../gitops/helpers.js';
import { describeReal, INSTALL, installRbac, until, type RealHarness } from './harness.js';
import {
  patchModePolicy,
  placeServe,
  replicasOwners,
  serveDeployment,
  serveScaling,
  startPatchStory,
} from './patch-story.js';

let h: RealHarness;
const deployment = () => serveDeployment(h);

describeReal('patch mode beside Flux', () => {
  beforeAll(async () => {
    h = await startPatchStory(
      patchModePolicy(),
      [
        { name: 'gpu-a', gpus: 1 },
        { name: 'gpu-s', gpus: 3, labels: { 'gpuops.dev/pool': 'short-task' } },
        { name: 'gpu-u', gpus: 1 },
      ],
      { patchModeRbac: false },
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('pools, a benchmark Job run by the real Job controller, placement: each applied by Flux', async () => {
    const placed = await placeServe(h);
    expect(placed.pool).toBe('short-task');
    // KWOK ran the Job's pod for its 3 s; gpuops measured the container's start and finish.
    expect(placed.runTimeSeconds).toBeGreaterThanOrEqual(2);
    expect(placed.runTimeSeconds).toBeLessThanOrEqual(6);
    expect((await deployment()).spec.replicas).toBe(1);
  });

  it('without the patch-mode component: each 403 is one clear line, nothing patched; Flux then applies what Git holds', async () => {
    await h.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: 'serve',
          namespace: 'algorithms',
          annotations: { 'team.example.com/owner': 'vision' },
        },
      },
      // Its own field manager: Flux's kustomize-controller takes over and removes what the
      // managers `kubectl` and `before-first-apply` own (see the last test).
      'team-vision',
    );
    // One replica 100 % busy > max 80 %: 2 replicas, room for both on gpu-s's 3 GPUs.
    h.local.load.setLoad('serve', 100);
    const r = await until('a scale-up is decided', async () => {
      const pass = await h.pass();
      return serveScaling(pass)?.action === 'scale-up' && pass;
    });
    expect(serveScaling(r)?.replicas).toEqual({ from: 1, to: 2 });
    // The scale patch, and the hand-over of replicas' ownership (a read of the Deployment, every
    // pass where Git binds gpuops-scale): each refused, each one line.
    expect(r.patches).toHaveLength(2);
    expect(r.patches[0]).toMatch(
      /^Deployment algorithms\/serve: .*forbidden.*cannot (get|patch) resource "deployments\/scale"/,
    );
    expect(r.patches[1]).toMatch(
      /^Deployment algorithms\/serve: could not set the hand-over of fields shared with Git’s applier: HTTP 403: .*cannot get resource "deployments" in API group "apps"/,
    );
    for (const line of r.patches) expect(line).not.toMatch(/\n|\bat \S+ \(/); // one line, no stack
    expect((await deployment()).spec.replicas).toBe(1);
    // Git holds 2 (committed before the patch): Flux's next reconcile applies it.
    expect(h.file('main', 'clusters/prod/algorithms/serve/deployment.yaml')).toMatch(/replicas: 2/);
    await h.sync();
    await until('the Deployment controller runs two replicas', async () => {
      const d = await deployment();
      return d.spec.replicas === 2 && d.status?.readyReplicas === 2;
    });
    expect(replicasOwners(await deployment())).toEqual(['kustomize-controller/Apply']);
  });

  it('with it: gpuops patches replicas, Flux’s next reconcile of main keeps them, and the team’s annotation survives both', async () => {
    await installRbac(h.kc, path.join(INSTALL, 'components/patch-mode'));
    // Two replicas 100 % busy: up to maxReplicas 3, patched by gpuops before any Flux reconcile.
    h.local.load.setLoad('serve', 250);
    const r = await until('a scale-up to 3 is decided', async () => {
      const pass = await h.pass();
      return serveScaling(pass)?.action === 'scale-up' && pass;
    });
    expect(serveScaling(r)?.replicas).toEqual({ from: 2, to: 3 });
    expect(r.patches).toEqual(['Deployment algorithms/serve: replicas 3']);
    const patched = await deployment();
    expect(patched.spec.replicas).toBe(3);
    expect(patched.metadata.annotations?.['team.example.com/owner']).toBe('vision');
    expect(replicasOwners(patched)).toEqual(['gpuops/Update/scale']);
    expect(h.file('main', 'clusters/prod/algorithms/serve/deployment.yaml')).toMatch(/replicas: 3/);
    // Flux applies main, which holds gpuops's commit: its dry run finds no drift in replicas, so
    // the field stays gpuops's (it was kustomize-controller's after the previous test's sync).
    expect(await h.sync()).toContain(git(h.repo.remote, 'rev-parse', 'main').trim());
    const after = await deployment();
    expect(after.spec.replicas).toBe(3);
    expect(after.metadata.annotations?.['team.example.com/owner']).toBe('vision');
    expect(replicasOwners(after)).toEqual(['gpuops/Update/scale']);
    await until('the Deployment controller runs three replicas', async () => {
      const d = await deployment();
      return d.status?.readyReplicas === 3;
    });
  });

  it('a field applied as the manager `kubectl` is removed by Flux’s next reconcile; the team’s stays', async () => {
    await h.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'serve', namespace: 'algorithms', annotations: { 'example.com/edited': 'yes' } },
      },
      'kubectl',
    );
    expect((await deployment()).metadata.annotations?.['example.com/edited']).toBe('yes');
    await h.sync();
    const after = await deployment();
    expect(after.metadata.annotations?.['example.com/edited']).toBeUndefined();
    expect(after.metadata.annotations?.['team.example.com/owner']).toBe('vision');
    expect(after.spec.replicas).toBe(3);
  });
});
