import { describe, expect, it } from 'vitest';
import { LoadModel } from './load-model.js';
import type { KubeObject } from './types.js';

const NOW = new Date('2026-12-01T10:00:00Z');

function pod(
  name: string,
  opts: {
    algorithm?: string;
    gpus?: number;
    phase?: string;
    ready?: boolean;
    owner?: string;
    deleting?: boolean;
  },
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'algorithms',
      labels: opts.algorithm ? { 'gpuops.dev/algorithm': opts.algorithm } : {},
      ownerReferences: [
        {
          apiVersion: opts.owner === 'Job' ? 'batch/v1' : 'apps/v1',
          kind: opts.owner ?? 'ReplicaSet',
          name: 'o',
          uid: 'u',
          controller: true,
        },
      ],
      ...(opts.deleting ? { deletionTimestamp: '2026-12-01T09:59:00Z' } : {}),
    },
    spec: {
      nodeName: 'n',
      containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': String(opts.gpus ?? 1) } } }],
    },
    status: {
      phase: opts.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
    },
  };
}

describe('LoadModel', () => {
  const rows: { name: string; load: number; pods: KubeObject[]; want: Record<string, number> }[] = [
    {
      name: 'spreads the offered load over the GPUs of serving pods, a 2-GPU pod taking two shares',
      load: 150,
      pods: [pod('a', { algorithm: 'x' }), pod('b', { algorithm: 'x', gpus: 2 })],
      want: { 'algorithms/a': 50, 'algorithms/b': 50 },
    },
    {
      name: 'caps each GPU at 100 %',
      load: 500,
      pods: [pod('a', { algorithm: 'x' })],
      want: { 'algorithms/a': 100 },
    },
    {
      name: 'pods that are Pending, not Ready or being deleted take no share and show 0',
      load: 90,
      pods: [
        pod('a', { algorithm: 'x' }),
        pod('p', { algorithm: 'x', phase: 'Pending' }),
        pod('r', { algorithm: 'x', ready: false }),
        pod('d', { algorithm: 'x', deleting: true }),
      ],
      want: { 'algorithms/a': 90, 'algorithms/p': 0, 'algorithms/r': 0, 'algorithms/d': 0 },
    },
    {
      name: 'a benchmark Job pod shows the job figure and takes no share; a foreign pod shows the foreign figure',
      load: 80,
      pods: [
        pod('a', { algorithm: 'x' }),
        pod('bench', { algorithm: 'x', owner: 'Job' }),
        pod('foreign', {}),
      ],
      want: { 'algorithms/a': 80, 'algorithms/bench': 95, 'algorithms/foreign': 70 },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const m = new LoadModel();
      m.setLoad('x', row.load);
      expect(Object.fromEntries(m.podUtilization(row.pods, NOW))).toEqual(row.want);
    });
  }

  it('follows a schedule as a step function and falls back to setLoad before its first step', () => {
    const m = new LoadModel({ defaultLoadPercent: 5 });
    expect(m.offeredLoad('x', NOW)).toBe(5);
    m.setLoad('x', 40);
    m.setSchedule('x', [
      { at: '2026-12-01T10:10:00Z', load: 300 },
      { at: new Date('2026-12-01T10:05:00Z'), load: 200 },
    ]);
    expect(m.offeredLoad('x', NOW)).toBe(40);
    expect(m.offeredLoad('x', new Date('2026-12-01T10:05:00Z'))).toBe(200);
    expect(m.offeredLoad('x', new Date('2026-12-01T10:09:59Z'))).toBe(200);
    expect(m.offeredLoad('x', new Date('2026-12-01T11:00:00Z'))).toBe(300);
    expect(m.algorithms()).toEqual(['x']);
  });

  it('rejects bad values naming them', () => {
    const m = new LoadModel();
    expect(() => m.setLoad('x', -1)).toThrow(/load of x/);
    expect(() => m.setSchedule('x', [{ at: 'soon', load: 1 }])).toThrow(/invalid time soon/);
    expect(() => new LoadModel({ foreignUtilizationPercent: 120 })).toThrow(/foreignUtilizationPercent/);
  });
});
