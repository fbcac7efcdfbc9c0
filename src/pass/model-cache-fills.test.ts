import { describe, expect, it } from 'vitest';
import type { JobView } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { modelCacheFillName } from '../manifests/model-cache.js';
import { fillStateOf, readModelCacheFills } from './model-cache-fills.js';

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
    files.set(`${dir('reading')}/deployment.yaml`, `      gpuops.dev/model-cache-fill: ${job('reading')}\n`);
    // A fill file of another step (the spec changed, the pull request not merged yet): not applied.
    files.set(
      `${dir('stale')}/model-cache-fill.yaml`,
      'kind: Job\nmetadata:\n  name: stale-model-cache-00000000\n',
    );
    const algorithms = ['done', 'running', 'down', 'gone', 'reading', 'stale', 'new'].map((n) => alg(n));
    const states = await readModelCacheFills(jobs, 'prod', [...algorithms, alg('plain', false)], files);
    expect(Object.fromEntries(states)).toEqual({
      [`team-a/${job('done')}`]: 'Complete',
      [`team-a/${job('running')}`]: 'Running',
      [`team-a/${job('down')}`]: 'Unknown',
      [`team-a/${job('gone')}`]: 'Absent',
    });
    expect(asked.sort()).toEqual(['done', 'down', 'gone', 'running'].map((n) => `team-a/${job(n)}`).sort());
  });
});
