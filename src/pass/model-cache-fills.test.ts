import { describe, expect, it } from 'vitest';
import type { JobView } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { modelCacheFillName } from '../manifests/model-cache.js';
import { parseGenerated, readGitModel } from '../plan/git-model.js';
import { fillStateOf, holdsFillJob, readModelCacheFills } from './model-cache-fills.js';

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
const alg = (name: string, withCache = true) =>
  ({
    name,
    namespace: 'team-a',
    spec: { image: 'x:1', resources: { gpus: 1 }, ...(withCache ? { modelCache: cache } : {}) },
  }) as unknown as ResolvedAlgorithm;
const job = (name: string) => modelCacheFillName(name, cache)!;
const dir = (name: string) => `clusters/prod/algorithms/${name}`;

describe('readModelCacheFills: one get per fill Job in Git that the Deployment does not read yet', () => {
  it('reads only those, and a read that fails is Unknown', async () => {
    const asked: string[] = [];
    const jobs = {
      readJob: async (namespace: string, name: string): Promise<JobView | null> => {
        asked.push(`${namespace}/${name}`);
        if (name.startsWith('down')) throw new Error('503');
        if (name.startsWith('gone')) return null;
        return { conditions: name.startsWith('done') ? [cond('Complete')] : [] } as unknown as JobView;
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
    const algorithms = ['done', 'running', 'down', 'gone', 'reading', 'stale', 'new'].map((n) => alg(n));
    const git = readGitModel('prod', files, 'gpuops.dev/pool');
    const states = await readModelCacheFills(jobs, [...algorithms, alg('plain', false)], git, parseGenerated);
    expect(Object.fromEntries(states)).toEqual({
      [`team-a/${job('done')}`]: 'Complete',
      [`team-a/${job('running')}`]: 'Running',
      [`team-a/${job('down')}`]: 'Unknown',
      [`team-a/${job('gone')}`]: 'Absent',
    });
    expect(asked.sort()).toEqual(['done', 'down', 'gone', 'running'].map((n) => `team-a/${job(n)}`).sort());
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
