/**
 * `gpuops plan` decides exactly as `reconcile` would (issue 27 item 1): both read the world with
 * `readWorld` — the plan through its own sources (a checkout of the GitOps repo, the cluster
 * through a kubeconfig file, the database, the same dcgm-exporter pages) — and plan it with
 * `planWorld`. The world here is one where history matters: a scale-up was decided 30 s ago and
 * its pull request is still open, so the scale-up cooldown (120 s) holds; a plan that read no
 * recorded decisions (`recent: []`, as `plan` did before) would propose the scale-up again. And
 * a model cache fill that just completed: the plan lists the fill Jobs as the pass does
 * (`planJobsInput`, read-only), so both write the Deployment that waited for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterInput, planJobsInput } from '../../src/compose/cluster-input.js';
import { planFromSources } from '../../src/cli/commands/plan.js';
import { passSources, reconcileOnce, type PassResult } from '../../src/pass/reconcile.js';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { planWorld } from '../../src/pass/plan.js';
import { readWorld } from '../../src/pass/read-world.js';
import { directorySpecs } from '../../src/pass/specs.js';
import type { WorldSources } from '../../src/pass/world.js';
import { createReconcilerMemory } from '../../src/plan/memory.js';
import { git } from '../gitops/helpers.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const SCALE_BRANCH = 'gpuops/prod/scale/serve';
let h: Harness;
let dir: string;

/** The plan's own sources, as `gpuops plan --repo DIR --kubeconfig FILE --database URL` builds them. */
async function planSources(): Promise<WorldSources> {
  git(join(dir, 'repo'), 'pull', '-q', 'origin', 'main');
  return {
    cluster: 'prod',
    specs: directorySpecs(join(dir, 'repo')),
    clusterRead: await clusterInput({ kubeconfig: join(dir, 'kubeconfig') }),
    jobs: (await planJobsInput({ kubeconfig: join(dir, 'kubeconfig') }))!,
    store: h.store,
    metrics: h.deps.metrics,
    defaults: await loadDefaultPolicy(),
    memory: createReconcilerMemory(),
  };
}

/** A dry-run reconcile pass at `now` (it writes nothing, so the world stays as it is). */
async function dryRun(now: Date): Promise<PassResult> {
  return reconcileOnce({ ...h.deps, dryRun: true, clock: { ...h.deps.clock, now: () => now } });
}

beforeAll(async () => {
  h = await startHarness({
    nodes: [gpuNode('gpu-test', 2), gpuNode('gpu-s1', 2, 'short-task'), gpuNode('gpu-u1', 2)],
    files: {
      'README.md': '# gitops\n',
      'algorithms/serve.yaml': algorithmFile('serve', { pool: 'short-task' }),
    },
    speed: 1e-6,
  });
  dir = mkdtempSync(join(tmpdir(), 'gpuops-plan-equals-'));
  h.sim.writeKubeconfig(join(dir, 'kubeconfig'));
  git(dir, 'clone', '-q', h.repo.url, 'repo');
  h.setMetrics(
    new DcgmScrapeSource({
      targets: ['gpu-test', 'gpu-s1', 'gpu-u1'].map((node) => ({
        url: `${h.sim.url}/dcgm/${node}/metrics`,
        node,
      })),
      now: () => h.sim.clock.now(),
    }),
  );
  h.load.setLoad('serve', 50);
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.pass();
  h.merge('gpuops/prod/placement/serve');
  expect((await h.sync()).errors).toEqual([]);
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('plan equals reconcile on the same world', () => {
  it('with nothing recorded yet: the same hold WithinRange through both', async () => {
    const now = h.sim.clock.now();
    const reconciled = await dryRun(now);
    const planned = await planFromSources(await planSources(), now);
    expect(reconciled.plan.scaling.map((d) => [d.algorithm, d.action, d.reason])).toEqual([
      ['serve', 'hold', 'WithinRange'],
    ]);
    expect(planned.output).toEqual(reconciled.plan);
  });

  it('30 s after a scale-up whose PR is open: both hold in the cooldown; without the history plan would scale again', async () => {
    h.load.setLoad('serve', 95);
    const up = await h.pass();
    expect(up.plan.scaling.map((d) => [d.action, d.replicas, d.reason])).toEqual([
      ['scale-up', { from: 1, to: 2 }, 'AboveMax'],
    ]);
    expect(up.writeBack.map((w) => [w.branch, w.action])).toEqual([[SCALE_BRANCH, 'created']]);

    h.sim.clock.advance(30);
    const now = h.sim.clock.now();
    const reconciled = await dryRun(now);
    const sources = await planSources();
    const planned = await planFromSources(sources, now);
    const cooldown = reconciled.plan.scaling.find((d) => d.algorithm === 'serve')!;
    expect([cooldown.action, cooldown.replicas, cooldown.reason]).toEqual([
      'hold',
      { from: 1, to: 1 },
      'CooldownActive',
    ]);
    expect(cooldown.message).toMatch(/last change 30s ago, scale-up cooldown is 120s/);
    expect(planned.output).toEqual(reconciled.plan);

    // The world without its recorded decisions (what `plan` read before): a second scale-up.
    const world = await readWorld(sources, now);
    expect(
      world.recent.filter((r) => r.action !== 'hold').map((r) => [r.subject, r.action, r.reason]),
    ).toEqual([['serve', 'scale-up', 'AboveMax']]);
    const forgetful = planWorld(
      { ...world, recent: [] },
      { templates: h.deps.templates, memory: createReconcilerMemory() },
    );
    expect(forgetful.output.scaling.map((d) => [d.action, d.reason])).toEqual([['scale-up', 'AboveMax']]);
  });

  it('the reconcile pass reads the same world as the plan (readWorld over passSources)', async () => {
    const now = h.sim.clock.now();
    const fromPass = await readWorld(passSources(h.deps), now);
    const fromPlan = await readWorld(await planSources(), now);
    expect(fromPlan.recent).toEqual(fromPass.recent);
    expect(fromPlan.snapshot).toEqual(fromPass.snapshot);
    expect([...fromPlan.git.files.keys()].sort()).toEqual([...fromPass.git.files.keys()].sort());
    expect(fromPlan.repo.algorithms).toEqual(fromPass.repo.algorithms);
  });

  it('a model cache fill that just completed: plan lists the fill Job as reconcile does and writes the Deployment', async () => {
    const fill =
      '  modelCache: {claimName: bert-models, mountPath: /models, fill: {image: fetch:1, args: [--sim-duration=60]}}\n';
    h.push(
      { 'algorithms/bert.yaml': algorithmFile('bert', { pool: 'short-task' }) + fill },
      'bert, with a model cache',
    );
    await h.pass();
    h.merge('gpuops/prod/placement/bert');
    expect((await h.sync()).errors).toEqual([]);
    h.sim.clock.advance(65);
    await h.settle();
    const job = h.sim.store
      .list('jobs', 'algorithms')
      .find((j) => j.metadata.name.startsWith('bert-model-cache-'));
    expect(job?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Complete', status: 'True' }),
    );

    const now = h.sim.clock.now();
    const reconciled = await dryRun(now);
    const sources = await planSources();
    const planned = await planFromSources(sources, now);
    const DEPLOYMENT = 'clusters/prod/algorithms/bert/deployment.yaml';
    expect(reconciled.plan.files.map((f) => f.path)).toContain(DEPLOYMENT);
    expect(planned.output).toEqual(reconciled.plan);
    // Without the Job read (what `plan` did before): the fill looks not Complete, no Deployment.
    const { jobs: _read, ...blind } = sources;
    const without = await planFromSources(blind, now);
    expect(without.output.files.map((f) => f.path)).not.toContain(DEPLOYMENT);
  });
});
