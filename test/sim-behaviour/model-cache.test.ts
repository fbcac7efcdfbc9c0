/**
 * A model cache end to end on the simulated cluster, through Git: the real pass writes `bert`'s
 * fill Job into its placement pull request (and no Deployment yet), a person merges it, the GitOps
 * applier applies it, the simulated Job controller runs the fill (120 s); a pass while it runs
 * writes nothing new; the pass after it is Complete writes the Deployment that mounts the claim
 * read-only, which the applier applies and whose replica starts. Another pass changes nothing, and
 * the fill never runs again. A changed fill step is a new Job, and the running Deployment stays as
 * it is until that Job is Complete.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/sim/index.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const FILL_SECONDS = 120;
const DIR = 'clusters/prod/algorithms/bert';
const fill = (version: string) =>
  [
    '  modelCache:',
    '    claimName: bert-models',
    '    mountPath: /models',
    `    fill: {image: registry.example.com/ml/fetch:${version}, args: [bert-base, --sim-duration=${FILL_SECONDS}]}`,
    '',
  ].join('\n');
const bert = (version: string) => algorithmFile('bert', { pool: 'short-task' }) + fill(version);

const jobs = (h: Harness) =>
  h.sim.store
    .list('jobs', 'algorithms')
    .filter((j) => j.metadata.labels?.['gpuops.dev/model-cache-fill'] !== undefined);
const complete = (j: KubeObject) =>
  (j.status?.conditions as { type: string; status: string }[] | undefined)?.some(
    (c) => c.type === 'Complete' && c.status === 'True',
  ) ?? false;
const bertPods = (h: Harness) =>
  h.sim.store
    .list('pods', 'algorithms')
    .filter((p) => p.metadata.labels?.['app.kubernetes.io/name'] === 'bert');

interface Seen {
  /** Files of bert's folder on main, by name. */
  files: string[];
  /** Fill Jobs in the cluster: name and whether Complete. */
  jobs: string[];
  deployment: KubeObject | null;
}

const seen = (h: Harness): Seen => ({
  files: ['deployment.yaml', 'model-cache-fill.yaml'].filter((f) => h.file('main', `${DIR}/${f}`) !== null),
  jobs: jobs(h).map((j) => `${j.metadata.name}${complete(j) ? ' Complete' : ''}`),
  deployment: h.sim.store.get('deployments', 'algorithms', 'bert') ?? null,
});

/** One pass; merges and syncs what it proposed. True when it pushed a new commit for bert. */
async function passAndSync(h: Harness): Promise<boolean> {
  const branch = 'gpuops/prod/placement/bert';
  const before = h.ref(branch);
  await h.pass();
  const after = h.ref(branch);
  const proposed = after !== null && after !== before;
  if (proposed) h.merge(branch);
  if (h.branches().includes('gpuops/prod/pools')) h.merge('gpuops/prod/pools');
  const sync = await h.sync();
  expect(sync.errors).toEqual([]);
  await h.settle();
  return proposed;
}

let h: Harness;
const at: Record<string, Seen> = {};
let proposedWhileFilling: boolean;
let proposedWhenSteady: boolean;
let runsAfterSteady: string[];
beforeAll(async () => {
  h = await startHarness({
    nodes: [gpuNode('gpu-t', 1, 'test'), gpuNode('gpu-s1', 2, 'short-task')],
    files: { 'README.md': '# gitops\n', 'algorithms/bert.yaml': bert('1.0') },
    behaviour: { startupSeconds: 5 },
    speed: 1e-9,
  });
  await passAndSync(h);
  at['merged'] = seen(h);
  h.sim.clock.advance(FILL_SECONDS / 2);
  await h.settle();
  proposedWhileFilling = await passAndSync(h);
  at['filling'] = seen(h);
  h.sim.clock.advance(FILL_SECONDS);
  await h.settle();
  at['filled'] = seen(h);
  await passAndSync(h);
  h.sim.clock.advance(10);
  await h.settle();
  at['served'] = seen(h);
  proposedWhenSteady = await passAndSync(h);
  runsAfterSteady = h.sim.store
    .list('pods', 'algorithms')
    .filter((p) => p.metadata.labels?.['gpuops.dev/model-cache-fill'] !== undefined)
    .map((p) => p.metadata.name);
  // A changed fill step: a new Job; the running Deployment waits for it.
  h.push({ 'algorithms/bert.yaml': bert('1.1') }, 'bert: a new download step');
  await passAndSync(h);
  at['refill'] = seen(h);
  h.sim.clock.advance(FILL_SECONDS + 5);
  await h.settle();
  await passAndSync(h);
  at['refilled'] = seen(h);
}, 300_000);
afterAll(async () => {
  await h?.close();
});

const annotation = (d: KubeObject | null) =>
  (d?.spec as { template: { metadata: { annotations?: Record<string, string> } } } | undefined)?.template
    .metadata.annotations?.['gpuops.dev/model-cache-fill'];

describe('a model cache on the simulated cluster: Git → applier → fill Job → the Deployment reads it', () => {
  it('the first placement pull request holds the fill Job and no Deployment; the applier runs it', () => {
    expect(at['merged']!.files).toEqual(['model-cache-fill.yaml']);
    expect(at['merged']!.jobs).toEqual([expect.stringMatching(/^bert-model-cache-[0-9a-f]{8}$/)]);
    expect(at['merged']!.deployment).toBeNull();
  });

  it('a pass while the fill runs proposes nothing: still no Deployment', () => {
    expect(proposedWhileFilling).toBe(false);
    expect(at['filling']!.files).toEqual(['model-cache-fill.yaml']);
    expect(at['filling']!.deployment).toBeNull();
  });

  it('the pass after the fill is Complete writes the Deployment mounting the claim read-only; its replica runs', () => {
    expect(at['filled']!.jobs).toEqual([`${at['merged']!.jobs[0]} Complete`]);
    expect(at['served']!.files).toEqual(['deployment.yaml', 'model-cache-fill.yaml']);
    const inGit = parse(h.file('main', `${DIR}/deployment.yaml`)!) as KubeObject;
    const pod = (inGit.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(pod.volumes).toEqual([
      { name: 'model-cache', persistentVolumeClaim: { claimName: 'bert-models', readOnly: true } },
    ]);
    expect((pod.containers as { volumeMounts: unknown }[])[0]!.volumeMounts).toEqual([
      { name: 'model-cache', mountPath: '/models', readOnly: true },
    ]);
    expect(annotation(at['served']!.deployment)).toBe(at['merged']!.jobs[0]);
    expect(bertPods(h).length).toBeGreaterThanOrEqual(1);
  });

  it('then nothing changes: no pull request, and the fill ran once', () => {
    expect(proposedWhenSteady).toBe(false);
    expect(runsAfterSteady).toHaveLength(1);
  });

  it('a changed fill step is a new Job; the Deployment keeps the old fill until the new one is Complete', () => {
    const [first] = at['merged']!.jobs;
    const second = at['refill']!.jobs.find((j) => !j.startsWith(first!));
    expect(second).toMatch(/^bert-model-cache-[0-9a-f]{8}$/);
    // The applier pruned the old Job with its file; the Deployment still reads the old fill.
    expect(at['refill']!.jobs).toEqual([second]);
    expect(annotation(at['refill']!.deployment)).toBe(first);
    expect(annotation(at['refilled']!.deployment)).toBe(second);
  });
});
