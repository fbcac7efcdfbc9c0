/**
 * The opening the patch-mode stories on the real control plane share (`label-handover`,
 * `replicas-handover`, `patch-mode-flux`): the policy, and `serve` placed into `short-task` through
 * Flux with one replica running.
 */
import { algorithmFile } from '../support/reconcile-harness.js';
import { until, type RealHarness } from './harness.js';

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
 * Pools pull request merged and applied, `serve` benchmarked and placed into `short-task` (within
 * 120 s), its placement merged and applied, and one replica Ready (within 60 s).
 * @throws when a wait times out (`until`)
 */
export async function placeServe(h: RealHarness): Promise<void> {
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.sync();
  await until(
    'serve is placed',
    async () => {
      const p = (await h.pass()).plan.placements.find((x) => x.algorithm === 'serve');
      return p?.pool === 'short-task';
    },
    120_000,
  );
  h.merge('gpuops/prod/placement/serve');
  await h.sync();
  await until('one replica runs', async () => {
    const d = await h.get<{ status?: { readyReplicas?: number } }>(
      '/apis/apps/v1/namespaces/algorithms/deployments/serve',
    );
    return d.status?.readyReplicas === 1;
  });
}
