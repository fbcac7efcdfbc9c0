/**
 * A model cache fill on the real control plane, through Git and Flux: `bert` and `broken` name a
 * `spec.modelCache` with a fill step, each claim a ReadWriteMany PersistentVolumeClaim bound by
 * kube-controller-manager's PersistentVolume controller to a static PersistentVolume (KWOK has no
 * provisioner). gpuops's first placement pull requests hold the fill Jobs and no Deployment; Flux
 * applies them, the real Job controller runs their pods on KWOK nodes:
 * - bert's fill runs 30 s (`--sim-duration`); a pass while it runs writes no Deployment, and the
 *   API server has none; once the Job is `Complete` the next pass writes the Deployment, Flux
 *   applies it (created after the Job's `completionTime`), and its pod mounts the claim read-only;
 * - broken's fill exits 1 (`--sim-fail`, KWOK's `pod-fail` stage): the Job controller retries it
 *   `backoffLimit` times and marks the Job `Failed`; no Deployment is ever written, the pass warns
 *   once (namespace, algorithm, Job, `BackoffLimitExceeded`) and the fleet status shows it held.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/object.js';
import { statusStoreOf } from '../../src/store/index.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { branches, describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const NS = 'algorithms';
const FILL_SECONDS = 30;
const dir = (alg: string) => `clusters/prod/algorithms/${alg}`;
const spec = (alg: string, fillArgs: string) =>
  algorithmFile(alg, { pool: 'short-task' }) +
  [
    '  modelCache:',
    `    claimName: ${alg}-models`,
    '    mountPath: /models',
    `    fill: {image: registry.example.com/ml/fetch:1.0, args: [${fillArgs}]}`,
    '',
  ].join('\n');

type Condition = { type: string; status: string };
type Job = KubeObject<unknown, { conditions?: Condition[]; completionTime?: string; failed?: number }>;
type Pod = KubeObject<
  {
    nodeName?: string;
    volumes?: unknown[];
    containers: { volumeMounts?: unknown[] }[];
  },
  { phase?: string }
>;

let h: RealHarness;

/** GET as the admin; null on 404. */
async function find<T>(path: string): Promise<T | null> {
  try {
    return await h.get<T>(path);
  } catch (err) {
    if (String(err).includes(': 404 ')) return null;
    throw err;
  }
}
const deployment = (alg: string) => find<KubeObject>(`/apis/apps/v1/namespaces/${NS}/deployments/${alg}`);
const job = (name: string) => find<Job>(`/apis/batch/v1/namespaces/${NS}/jobs/${name}`);
const isTrue = (j: Job | null, type: string) =>
  j?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
/** The fill Job's name as gpuops wrote it to `main`. */
const fillName = (alg: string) =>
  (parse(h.file('main', `${dir(alg)}/model-cache-fill.yaml`)!) as KubeObject).metadata.name;
const inGit = (ref: string, alg: string) => h.file(ref, `${dir(alg)}/deployment.yaml`);

/** A pass; merges what it proposed for `algs` (and the pools) and lets Flux apply `main`. */
async function passAndSync(algs: string[]): Promise<void> {
  await h.pass();
  const open = branches(h.repo);
  for (const b of ['gpuops/prod/pools', ...algs.map((a) => `gpuops/prod/placement/${a}`)])
    if (open.includes(b)) h.merge(b);
  await h.sync();
}

/**
 * Polls `name` until it has condition `type`, noting each poll where `alg`'s Deployment exists
 * in the API server while it has not (`early`); resolves with the Job.
 */
async function untilJob(name: string, type: string, alg: string, early: string[], ms: number): Promise<Job> {
  return until(
    `the Job ${name} is ${type}`,
    async () => {
      const [j, d] = [await job(name), await deployment(alg)];
      const reached = isTrue(j, type);
      if (d !== null && !reached) early.push(d.metadata.creationTimestamp ?? '?');
      return reached && j!;
    },
    ms,
  );
}

/** A ReadWriteMany claim bound to a static PersistentVolume reserved for it (`claimRef`). */
async function claim(name: string): Promise<void> {
  await h.apply({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `${name}-pv` },
    spec: {
      capacity: { storage: '100Gi' },
      accessModes: ['ReadWriteMany'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: '',
      nfs: { server: 'nfs.example.com', path: `/exports/${name}` },
      claimRef: { namespace: NS, name },
    },
  });
  await h.apply({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS },
    spec: {
      accessModes: ['ReadWriteMany'],
      storageClassName: '',
      resources: { requests: { storage: '100Gi' } },
    },
  });
}

describeReal('a model cache fill through Flux: the Deployment only after the fill Job is Complete', () => {
  beforeAll(async () => {
    h = await startRealHarness({
      files: {
        'README.md': '# gitops\n',
        'algorithms/bert.yaml': spec('bert', `bert-base, --sim-duration=${FILL_SECONDS}`),
        'algorithms/broken.yaml': spec('broken', 'bert-base, --sim-fail, --sim-duration=1'),
      },
    });
    await h.addNodes([
      { name: 'gpu-t', gpus: 1, labels: { 'gpuops.dev/pool': 'test' } },
      { name: 'gpu-s', gpus: 2, labels: { 'gpuops.dev/pool': 'short-task' } },
    ]);
    // The namespace is the shipped Flux objects' (templates/install/flux-kustomization.yaml).
    for (const c of ['bert-models', 'broken-models']) await claim(c);
    await until('both claims are Bound', async () => {
      const phases = await Promise.all(
        ['bert-models', 'broken-models'].map((c) =>
          h
            .get<KubeObject<unknown, { phase?: string }>>(
              `/api/v1/namespaces/${NS}/persistentvolumeclaims/${c}`,
            )
            .then((x) => x.status?.phase),
        ),
      );
      return phases.every((p) => p === 'Bound');
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the first pull requests hold the fill Jobs; while bert fills, a pass writes no Deployment', async () => {
    await passAndSync(['bert', 'broken']);
    expect(await deployment('bert')).toBeNull();
    for (const a of ['bert', 'broken']) {
      expect(h.file('main', `${dir(a)}/model-cache-fill.yaml`)).toContain('kind: Job');
      expect(inGit('main', a)).toBeNull();
    }
    const fill = fillName('bert');
    expect(await job(fill)).not.toBeNull();
    await passAndSync(['bert']);
    // Read after the pass: not Complete now, so not Complete while the pass read it.
    expect(isTrue(await job(fill), 'Complete')).toBe(false);
    expect(inGit('main', 'bert')).toBeNull();
    expect(await deployment('bert')).toBeNull();
  });

  it('once the Job is Complete the next pass writes the Deployment; Flux applies it; its pod reads the claim read-only', async () => {
    const fill = fillName('bert');
    const early: string[] = [];
    const done = await untilJob(fill, 'Complete', 'bert', early, FILL_SECONDS * 4000);
    expect(early).toEqual([]);
    await passAndSync(['bert']);
    expect(inGit('main', 'bert')).toContain(`gpuops.dev/model-cache-fill: ${fill}\n`);
    const d = await deployment('bert');
    expect(d).not.toBeNull();
    expect(Date.parse(d!.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(
      Date.parse(done.status!.completionTime!),
    );
    const pod = await until('a replica of bert runs', async () => {
      const pods = (await h.pods(NS, 'app.kubernetes.io/name=bert')) as Pod[];
      return pods.find(
        (p) => p.metadata.ownerReferences?.[0]?.kind === 'ReplicaSet' && p.status?.phase === 'Running',
      );
    });
    expect(pod.spec!.nodeName).toBe('gpu-s');
    expect(pod.spec!.volumes).toContainEqual({
      name: 'model-cache',
      persistentVolumeClaim: { claimName: 'bert-models', readOnly: true },
    });
    expect(pod.spec!.containers[0]!.volumeMounts).toContainEqual({
      name: 'model-cache',
      mountPath: '/models',
      readOnly: true,
    });
    // The fill ran once: Flux's applies of the unchanged Job start no other pod.
    const fills = (await h.pods(NS, `gpuops.dev/model-cache-fill=${fill}`)) as Pod[];
    expect(fills.map((p) => p.status?.phase)).toEqual(['Succeeded']);
    // The fill pod wrote the claim: mounted read-write.
    expect(fills[0]!.spec!.volumes).toContainEqual({
      name: 'model-cache',
      persistentVolumeClaim: { claimName: 'bert-models' },
    });
    expect(fills[0]!.spec!.containers[0]!.volumeMounts).toContainEqual({
      name: 'model-cache',
      mountPath: '/models',
    });
  });

  it('a fill that fails: the Job controller retries it, the Job is Failed, no Deployment is ever written', async () => {
    const fill = fillName('broken');
    const early: string[] = [];
    const failed = await untilJob(fill, 'Failed', 'broken', early, 240_000);
    expect(early).toEqual([]);
    // backoffLimit 3: the first pod and three retries, each Failed by KWOK's pod-fail stage.
    expect(failed.status?.failed).toBe(4);
    await passAndSync([]);
    expect(inGit('main', 'broken')).toBeNull();
    expect(inGit('gpuops/prod/placement/broken', 'broken')).toBeNull();
    expect(await deployment('broken')).toBeNull();
  });

  it('gpuops reports the Failed fill Job where a person looks: one warning, and the fleet status', async () => {
    const fill = `${NS}/${fillName('broken')}`;
    const warned = () => h.logs.filter((l) => String(l.msg).startsWith('model cache fill failed'));
    expect(warned()).toEqual([
      expect.objectContaining({
        level: 40,
        namespace: NS,
        algorithm: 'broken',
        job: fill,
        reason: 'BackoffLimitExceeded',
      }),
    ]);
    const fleet = await statusStoreOf(h.store)!.fleetStatus('prod');
    expect(fleet?.algorithms.find((a) => a.name === 'broken')?.held).toEqual({
      reason: 'ModelCacheFillFailed',
      message: expect.stringContaining(`fill Job ${fill} failed (BackoffLimitExceeded`),
    });
    // Once per Job: the next pass reads it Failed again and says nothing more.
    await passAndSync([]);
    expect(warned()).toHaveLength(1);
  });
});
