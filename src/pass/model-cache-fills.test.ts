import { describe, expect, it } from 'vitest';
import type { JobView } from '../cluster/index.js';
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
      files.set(`${dir(n)}/model-cache-fill.yaml`, `kind: Job\nmetadata:\n  name: ${job(n)}\n`);
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
