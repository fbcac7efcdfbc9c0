/**
 * The opening the patch-mode stories on the real control plane share (`label-handover`,
 * `replicas-handover`, `patch-mode-flux`): the policy, the harness with its nodes (and the
 * patch-mode component's RBAC where the story starts with it), `serve` placed into `short-task`
 * through Flux with one replica running, and the reads of `serve` the stories make.
 */
import path from 'node:path';
import type { ManagedFieldsEntry } from '../../src/cluster/field-ownership.js';
import type { PassResult } from '../../src/pass/reconcile.js';
import type { Placement } from '../../src/placement/index.js';
import { ownersOf } from '../support/managed-fields.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { INSTALL, installRbac, startRealHarness, until, type RealHarness, type TestNode } from './harness.js';

/**
 * The patch-mode policy of those stories: engine gpuops, a 5 s window, scale-up at once, scale-down
 * held for an hour (no scale-down within a test). `spec` lines before `scaling:` (e.g. `pools:`)
 * go in `before`, each indented as under `spec:`.
 */
export function patchModePolicy(before: readonly string[] = []): string {
  return [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: test}',
    'spec:',
    ...before,
    '  scaling:',
    '    mode: patch',
    '    engine: gpuops',
    '    windowSeconds: 5',
    '    staleSampleSeconds: 120',
    '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
    '    scaleDown: {cooldownSeconds: 3600, stabilizationWindowSeconds: 3600}',
    '',
  ].join('\n');
}

/** The GitOps repo's first files: `serve` (pool auto, a 3 s benchmark, at most 3 replicas) and `policy`. */
export function storyFiles(policy: string): Record<string, string> {
  return {
    'README.md': '# gitops\n',
    'algorithms/serve.yaml': algorithmFile('serve', { pool: 'auto', benchSeconds: 3, maxReplicas: 3 }),
    'policies/test.yaml': policy,
  };
}

/**
 * The harness of a story: the repo of {@link storyFiles} with `policy`, the KWOK nodes `nodes`, and
 * with `patchModeRbac` the patch-mode component's RBAC (`templates/install/components/patch-mode`).
 * @throws what `startRealHarness` throws (no control plane built)
 */
export async function startPatchStory(
  policy: string,
  nodes: TestNode[],
  o: { patchModeRbac: boolean },
): Promise<RealHarness> {
  const h = await startRealHarness({ files: storyFiles(policy) });
  await h.addNodes(nodes);
  if (o.patchModeRbac) await installRbac(h.kc, path.join(INSTALL, 'components/patch-mode'));
  return h;
}

/** `serve`'s Deployment as the API server holds it (the fields the stories read). */
export interface ServeDeployment {
  metadata: { annotations?: Record<string, string>; managedFields?: ManagedFieldsEntry[] };
  spec: { replicas: number };
  status?: { readyReplicas?: number };
}

/** GET of `serve`'s Deployment in `algorithms`, as the admin. */
export const serveDeployment = (h: RealHarness): Promise<ServeDeployment> =>
  h.get<ServeDeployment>('/apis/apps/v1/namespaces/algorithms/deployments/serve');

/** The managedFields entries of `d` owning `spec.replicas`, as `manager/operation[/subresource]`, sorted. */
export const replicasOwners = (d: ServeDeployment): string[] =>
  ownersOf(d.metadata.managedFields, 'f:spec', 'f:replicas');

/** The pass's scaling decision of `serve`, if any. */
export const serveScaling = (r: PassResult) => r.plan.scaling.find((s) => s.algorithm === 'serve');

/**
 * Pools pull request merged and applied, `serve` benchmarked and placed into `short-task` (within
 * 120 s), its placement merged and applied, and one replica Ready (within 60 s).
 * @returns serve's placement decision of the pass that placed it
 * @throws when a wait times out (`until`; the placement's with the last decision and the benchmark Jobs' status)
 */
export async function placeServe(h: RealHarness): Promise<Placement> {
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.sync();
  let last = '';
  const placed = await until(
    'serve is placed',
    async () => {
      const p = (await h.pass()).plan.placements.find((x) => x.algorithm === 'serve');
      const jobs = await h.get<{ items: { status?: unknown }[] }>(
        '/apis/batch/v1/namespaces/algorithms/jobs',
      );
      last = `${p?.reason}: ${p?.message}; jobs: ${JSON.stringify(jobs.items.map((j) => j.status))}`;
      return p?.pool === 'short-task' && p;
    },
    120_000,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; last: ${last}`);
  });
  h.merge('gpuops/prod/placement/serve');
  await h.sync();
  await until('one replica runs', async () => (await serveDeployment(h)).status?.readyReplicas === 1);
  return placed;
}
