import { describe, expect, it } from 'vitest';
import { KubeApiError, type JobView } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { modelCacheFillName } from '../manifests/model-cache.js';
import { parseGenerated, readGitModel } from '../plan/git-model.js';
import { FILL_SELECTOR, fillStateOf, holdsFillJob, readModelCacheFills } from './model-cache-fills.js';

const cond = (type: string, status = 'True') => ({ type, status, reason: null, message: null });

describe('fillStateOf: a Job by its conditions', () => {
  it.each([
    ['no Job', null, 'Absent'],
    ['no condition yet', [], 'Running'],
    ['Complete', [cond('Complete')], 'Complete'],
    ['Complete but False', [cond('Complete', 'False')], 'Running'],
    ['Failed', [cond('Failed')], 'Failed'],
    ['SuccessCriteriaMet only (Complete comes later)', [cond('SuccessCriteriaMet')], 'Running'],
  ] as const)('%s → %s', (_what, conditions, state) => {
    expect(fillStateOf(conditions === null ? null : { conditions: [...conditions] })).toBe(state);
  });
});

const cache = { claimName: 'm', mountPath: '/models', fill: { image: 'fetch:1' } };
const alg = (name: string, withCache = true, namespace = 'team-a') =>
  ({
    name,
    namespace,
    spec: { image: 'x:1', resources: { gpus: 1 }, ...(withCache ? { modelCache: cache } : {}) },
  }) as unknown as ResolvedAlgorithm;
const job = (name: string) => modelCacheFillName(name, cache)!;
const dir = (name: string) => `clusters/prod/algorithms/${name}`;
/** Git's fill file of `name` as gpuops writes it: the Job with gpuops's fill labels. */
const fillFile = (name: string) =>
  `kind: Job\nmetadata:\n  name: ${job(name)}\n  labels: {app.kubernetes.io/managed-by: gpuops, gpuops.dev/model-cache-fill: ${job(name)}}\n`;

describe('readModelCacheFills: one list per namespace of the fill Jobs in Git that the Deployment does not read yet', () => {
  it('lists only namespaces where a fill waits, by the fill selector; a failed list is Unknown', async () => {
    const asked: string[] = [];
    const view = (name: string, conditions: ReturnType<typeof cond>[]) =>
      ({ name, conditions }) as unknown as JobView;
    const jobs = {
      listJobs: async (namespace: string, selector: string): Promise<JobView[]> => {
        asked.push(`${namespace} ${selector}`);
        if (namespace === 'team-down') throw new Error('503');
        return [
          view(job('done'), [cond('Complete')]),
          view(job('running'), []),
          view(job('reading'), [cond('Complete')]),
        ];
      },
    };
    const files = new Map<string, string>();
    for (const n of ['done', 'running', 'down', 'gone', 'reading'])
      files.set(`${dir(n)}/model-cache-fill.yaml`, fillFile(n));
    files.set(
      `${dir('reading')}/deployment.yaml`,
      `spec: {template: {metadata: {annotations: {gpuops.dev/model-cache-fill: ${job('reading')}}}}}\n`,
    );
    // A fill file of another step (the spec changed, the pull request not merged yet): not applied.
    files.set(
      `${dir('stale')}/model-cache-fill.yaml`,
      'kind: Job\nmetadata:\n  name: stale-model-cache-00000000\n',
    );
    const algorithms = [
      ...['done', 'running', 'gone', 'reading', 'stale', 'new'].map((n) => alg(n)),
      alg('down', true, 'team-down'),
      // Only a Deployment that reads its fill, in a third namespace: that namespace is not listed.
      alg('reading', true, 'team-quiet'),
      alg('plain', false, 'team-plain'),
    ];
    const git = readGitModel('prod', files, 'gpuops.dev/pool');
    const states = await readModelCacheFills(jobs, algorithms, git, parseGenerated);
    expect(Object.fromEntries(states)).toEqual({
      [`team-a/${job('done')}`]: 'Complete',
      [`team-a/${job('running')}`]: 'Running',
      [`team-down/${job('down')}`]: 'Unknown',
      [`team-a/${job('gone')}`]: 'Absent',
    });
    const selector = 'app.kubernetes.io/managed-by=gpuops,gpuops.dev/model-cache-fill';
    expect(FILL_SELECTOR).toBe(selector);
    expect(asked.sort()).toEqual([`team-a ${selector}`, `team-down ${selector}`]);
  });

  it("gives each Failed Job's reason and message, with its algorithm, by the same key", async () => {
    const failed = {
      type: 'Failed',
      status: 'True',
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    };
    const jobs = {
      listJobs: async (): Promise<JobView[]> => [
        { name: job('broken'), conditions: [failed] } as unknown as JobView,
        { name: job('ok'), conditions: [cond('Failed', 'False')] } as unknown as JobView,
      ],
    };
    const files = new Map(
      ['broken', 'ok'].map((n) => [
        `${dir(n)}/model-cache-fill.yaml`,
        `kind: Job\nmetadata:\n  name: ${job(n)}\n`,
      ]),
    );
    const out = new Map();
    const git = readGitModel('prod', files, 'gpuops.dev/pool');
    const states = await readModelCacheFills(jobs, [alg('broken'), alg('ok')], git, parseGenerated, {
      failed: out,
    });
    expect(Object.fromEntries(states)).toEqual({
      [`team-a/${job('broken')}`]: 'Failed',
      [`team-a/${job('ok')}`]: 'Running',
    });
    expect(Object.fromEntries(out)).toEqual({
      [`team-a/${job('broken')}`]: {
        namespace: 'team-a',
        algorithm: 'broken',
        job: `team-a/${job('broken')}`,
        reason: 'BackoffLimitExceeded',
        message: 'Job has reached the specified backoff limit',
      },
    });
  });

  it('lists nothing when no fill waits', async () => {
    const jobs = { listJobs: async (): Promise<JobView[]> => expect.fail('listed') };
    const git = readGitModel('prod', new Map(), 'gpuops.dev/pool');
    expect(await readModelCacheFills(jobs, [alg('new'), alg('plain', false)], git, parseGenerated)).toEqual(
      new Map(),
    );
  });
});

describe("holdsFillJob: Git's fill file by its parsed kind and name", () => {
  const name = job('done');
  const ROWS: [string, string, boolean][] = [
    [
      'block style, as gpuops writes it',
      `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\n`,
      true,
    ],
    ['flow style', `{apiVersion: batch/v1, kind: Job, metadata: {name: ${name}, namespace: team-a}}\n`, true],
    ['quoted keys, no newline at the end', `"kind": "Job"\n"metadata":\n  "name": "${name}"`, true],
    [
      'metadata before kind, a comment after the name',
      `metadata:\n  labels: {team: ml}\n  name: ${name} # the fill\nkind: Job\n`,
      true,
    ],
    [
      'another Job whose label holds the name',
      `kind: Job\nmetadata:\n  labels:\n    app.kubernetes.io/name: ${name}\n  name: other\n`,
      false,
    ],
    ['a ConfigMap named so', `kind: ConfigMap\nmetadata:\n  name: ${name}\n`, false],
    ['not YAML', `kind: Job\nmetadata:\n  name: ${name}\n :\n- [`, false],
    ['a name that only starts the same', `kind: Job\nmetadata:\n  name: ${name}-old\n`, false],
  ];
  it.each(ROWS)('%s → %s', (_what, text, holds) => {
    expect(holdsFillJob(text, name, parseGenerated)).toBe(holds);
  });

  it('reads the file through the parse it is given (the pass memo), and nothing without a file', () => {
    const texts: string[] = [];
    const parse = (t: string) => (texts.push(t), parseGenerated(t));
    const text = `kind: Job\nmetadata: {name: ${name}}\n`;
    expect(holdsFillJob(text, name, parse)).toBe(true);
    expect(holdsFillJob(undefined, name, parse)).toBe(false);
    expect(texts).toEqual([text]);
  });
});

describe('readModelCacheFills: a fill it cannot read says why (the list failed, or Git’s Job is unlabelled)', () => {
  const git = (names: string[], text = fillFile) =>
    readGitModel(
      'prod',
      new Map(names.map((n) => [`${dir(n)}/model-cache-fill.yaml`, text(n)])),
      'gpuops.dev/pool',
    );
  const FORBIDDEN =
    'jobs.batch is forbidden: User "system:serviceaccount:gpuops-system:gpuops" cannot list resource "jobs" in API group "batch" in the namespace "team-a"';
  // What `createKubeJobApi` throws for each answer (`toKubeApiError`), and a plain Error.
  it.each<[string, Error, string, string]>([
    [
      '403: the ClusterRole without list',
      new KubeApiError('list Jobs team-a x', 403, FORBIDDEN),
      'HTTP 403',
      `fill Jobs could not be listed: HTTP 403: ${FORBIDDEN} — apply the gpuops-benchmark ClusterRole of this version (it grants list on batch/jobs; the RoleBinding gpuops writes in namespace team-a binds it there)`,
    ],
    [
      '404: the API group is not served',
      new KubeApiError('list Jobs team-a x', 404, 'the server could not find the requested resource'),
      'HTTP 404',
      'fill Jobs could not be listed: HTTP 404: the server could not find the requested resource — the API server does not serve batch/v1 Jobs',
    ],
    [
      '500',
      new KubeApiError('list Jobs team-a x', 500, 'etcdserver: request timed out'),
      'HTTP 500',
      'fill Jobs could not be listed: HTTP 500: etcdserver: request timed out — the API server failed to answer; tried again next pass',
    ],
    [
      'a timeout (no answer)',
      new KubeApiError('list Jobs team-a x', null, 'ETIMEDOUT: connect ETIMEDOUT 10.0.0.1:443'),
      'no answer',
      'fill Jobs could not be listed: no answer: ETIMEDOUT: connect ETIMEDOUT 10.0.0.1:443 — no answer from the API server; tried again next pass',
    ],
    [
      '401',
      new KubeApiError('list Jobs team-a x', 401, 'Unauthorized'),
      'HTTP 401',
      "fill Jobs could not be listed: HTTP 401: Unauthorized — the API server refused gpuops's credentials (its ServiceAccount token)",
    ],
  ])(
    '%s → Unknown, held ModelCacheFillNotListed with the status and what to do',
    async (_w, err, code, why) => {
      const jobs = { listJobs: async (): Promise<JobView[]> => Promise.reject(err) };
      const held = new Map();
      const states = await readModelCacheFills(
        jobs,
        [alg('a'), alg('b'), alg('other', true, 'team-b')],
        git(['a', 'b']),
        parseGenerated,
        { held },
      );
      expect(Object.fromEntries(states)).toEqual({
        [`team-a/${job('a')}`]: 'Unknown',
        [`team-a/${job('b')}`]: 'Unknown',
      });
      expect([...held.values()]).toEqual(
        ['a', 'b'].map((n) => ({
          namespace: 'team-a',
          algorithm: n,
          job: `team-a/${job(n)}`,
          reason: 'ModelCacheFillNotListed',
          why,
          scope: 'list team-a',
          code,
        })),
      );
    },
  );

  it('a listed namespace holds nothing; one Failed Job reads Failed, not held', async () => {
    const jobs = {
      listJobs: async (): Promise<JobView[]> => [{ name: job('a'), conditions: [] } as unknown as JobView],
    };
    const held = new Map();
    const states = await readModelCacheFills(jobs, [alg('a')], git(['a']), parseGenerated, { held });
    expect(Object.fromEntries(states)).toEqual({ [`team-a/${job('a')}`]: 'Running' });
    expect(held.size).toBe(0);
  });

  it('a Job both Complete and Failed (not the Job controller’s) is Complete, and no failure is reported', async () => {
    const failed = { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: null };
    const jobs = {
      listJobs: async (): Promise<JobView[]> => [
        { name: job('a'), conditions: [cond('Complete'), failed] } as unknown as JobView,
      ],
    };
    const out = new Map();
    const states = await readModelCacheFills(jobs, [alg('a')], git(['a']), parseGenerated, { failed: out });
    expect(Object.fromEntries(states)).toEqual({ [`team-a/${job('a')}`]: 'Complete' });
    expect(out.size).toBe(0);
  });

  it("Git's Job without gpuops's labels, not in the list: Unknown, held ModelCacheFillUnlabelled; with a labelled Job of its name listed: that Job's state", async () => {
    const bare = (n: string) =>
      `kind: Job\nmetadata:\n  name: ${job(n)}\n  labels: {app.kubernetes.io/managed-by: gpuops}\n`;
    const jobs = {
      listJobs: async (): Promise<JobView[]> => [
        { name: job('listed'), conditions: [cond('Complete')] } as unknown as JobView,
      ],
    };
    const held = new Map();
    const states = await readModelCacheFills(
      jobs,
      [alg('hand'), alg('listed')],
      git(['hand', 'listed'], bare),
      parseGenerated,
      { held },
    );
    expect(Object.fromEntries(states)).toEqual({
      [`team-a/${job('hand')}`]: 'Unknown',
      [`team-a/${job('listed')}`]: 'Complete',
    });
    expect([...held.values()]).toEqual([
      {
        namespace: 'team-a',
        algorithm: 'hand',
        job: `team-a/${job('hand')}`,
        reason: 'ModelCacheFillUnlabelled',
        why: "the fill Job in Git lacks gpuops's labels (app.kubernetes.io/managed-by: gpuops, gpuops.dev/model-cache-fill): gpuops does not list it and the model cache admission policy refuses it; the placement pull request restores them",
        scope: `job team-a/${job('hand')}`,
        code: 'unlabelled',
      },
    ]);
  });
});
