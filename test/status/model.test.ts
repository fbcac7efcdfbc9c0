/** The status page's pure parts: view model, chart buckets and markers, HTML and text. */
import { describe, expect, it } from 'vitest';
import type { NodeInfo } from '../../src/cluster/types.js';
import { renderStatusHtml } from '../../src/status/html.js';
import { bucketSamples, buildStatusView, chartMarkers, type StatusInput } from '../../src/status/model.js';
import { renderStatusText } from '../../src/status/text.js';
import type { DecisionRecord } from '../../src/store/types.js';
import { nodeInfo } from '../support/node-info.js';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const T0 = Date.parse('2026-11-29T12:00:00.000Z') / 1000;

const node = (name: string, over: Partial<NodeInfo> = {}): NodeInfo =>
  nodeInfo(name, { gpuProduct: 'NVIDIA-H100-80GB-HBM3', ...over });

function decision(at: string, action: string, from: number, to: number): DecisionRecord {
  return {
    kind: 'scaling',
    subject: 'bert-train',
    action,
    reason: action === 'hold' ? 'WithinBand' : 'AboveMax',
    message: `${action} message`,
    replicasFrom: from,
    replicasTo: to,
    utilization: 90,
    at,
  };
}

function input(over: Partial<StatusInput> = {}): StatusInput {
  return {
    cluster: 'prod',
    now: NOW,
    snapshot: {
      takenAt: '2026-11-30T11:59:00.000Z',
      nodes: [
        node('gpu-h100-02', { pool: 'long-task', gpuRequested: 3 }),
        node('gpu-h100-01', { pool: 'test' }),
        node('gpu-a100-07', { pool: 'long-task', ready: false, gpuProduct: 'NVIDIA-A100-SXM4-80GB' }),
        node('gpu-mig-01', { gpuAllocatable: 0, migAllocatable: 14 }),
        node('gpu-t4-09', { gpuProduct: 'Tesla-T4', cordoned: true, schedulable: false }),
        node('cpu-01', { gpuProduct: null, gpuCapacity: 0, gpuAllocatable: 0 }),
      ],
      pods: [
        {
          namespace: 'algorithms',
          name: 'bench-bert-train-1-abc',
          uid: 'u1',
          labels: { 'gpuops.dev/algorithm': 'bert-train' },
          nodeName: 'gpu-h100-01',
          phase: 'Running',
          ready: true,
          terminating: false,
          gpuRequest: 1,
          managed: true,
          algorithm: 'bert-train',
          owner: { kind: 'Job', name: 'bench-bert-train-1' },
          unschedulable: false,
          createdAt: '2026-11-30T11:50:00.000Z',
          requests: { cpuMillis: 0, memoryBytes: 0 },
          startedAt: null,
        },
      ],
    },
    fleet: {
      cluster: 'prod',
      at: '2026-11-30T11:59:00.000Z',
      longTaskThresholdSeconds: 600,
      pools: [{ node: 'gpu-h100-02', from: 'long-task', to: 'unused', reason: 'Unused', message: 'x' }],
      algorithms: [
        {
          name: 'bert-train',
          pool: 'long-task',
          runTimeSeconds: 600.5,
          placementReason: 'AboveThreshold',
          placementMessage: 'run time 600.5 s > 600 s',
          replicas: 3,
          minReplicas: 1,
          maxReplicas: 8,
          utilizationMin: 30,
          utilizationMax: 80,
          scalingReason: 'AboveMax',
          scalingMessage: 'utilisation 91 % above 80 %',
        },
      ],
    },
    samples: new Map([
      [
        'bert-train',
        [
          {
            algorithm: 'bert-train',
            namespace: 'a',
            pod: 'p1',
            utilization: 90,
            at: '2026-11-30T11:00:10.000Z',
          },
          {
            algorithm: 'bert-train',
            namespace: 'a',
            pod: 'p2',
            utilization: 70,
            at: '2026-11-30T11:05:00.000Z',
          },
        ],
      ],
    ]),
    history: new Map([['bert-train', [decision('2026-11-30T11:10:00.000Z', 'scale-up', 2, 3)]]]),
    pullRequests: [
      {
        cluster: 'prod',
        branch: 'gpuops/prod/scale/bert-train',
        kind: 'scale',
        subject: 'bert-train',
        title: 'Scale bert-train 2 → 3',
        body: '',
        desiredHash: 'h',
        number: 12,
        url: 'https://github.example/o/r/pull/12',
        state: 'open',
        updatedAt: '2026-11-30T11:10:00.000Z',
      },
      {
        cluster: 'prod',
        branch: 'gpuops/prod/pools',
        kind: 'pools',
        subject: 'pools',
        title: 'old',
        body: '',
        desiredHash: 'h',
        number: 11,
        url: null,
        state: 'merged',
        updatedAt: '2026-11-30T10:00:00.000Z',
      },
    ],
    recentDecisions: [decision('2026-11-30T11:10:00.000Z', 'scale-up', 2, 3)],
    ...over,
  };
}

describe('bucketSamples', () => {
  it.each([
    [
      'one bucket: mean, min, max of its samples',
      [
        [T0 + 10, 90],
        [T0 + 899, 70],
      ],
      [{ t: T0, mean: 80, min: 70, max: 90 }],
    ],
    [
      'the bucket boundary starts a new bucket',
      [
        [T0 + 899, 10],
        [T0 + 900, 20],
      ],
      [
        { t: T0, mean: 10, min: 10, max: 10 },
        { t: T0 + 900, mean: 20, min: 20, max: 20 },
      ],
    ],
    ['samples before the window are left out', [[T0 - 1, 50]], []],
    [
      'a gap stays a gap (no 0 % bucket)',
      [
        [T0, 40],
        [T0 + 3 * 900, 60],
      ],
      [
        { t: T0, mean: 40, min: 40, max: 40 },
        { t: T0 + 2700, mean: 60, min: 60, max: 60 },
      ],
    ],
  ] as const)('%s', (_, samples, expected) => {
    const got = bucketSamples(
      samples.map(([t, u]) => ({ utilization: u, at: new Date(t * 1000).toISOString() })),
      T0,
      T0 + 86400,
      900,
    );
    expect(got).toEqual(expected);
  });
});

describe('chartMarkers', () => {
  it('marks scale-up, scale-down and relabel; not holds nor no-op changes', () => {
    const m = chartMarkers(
      [
        decision('2026-11-30T01:00:00.000Z', 'scale-up', 1, 2),
        decision('2026-11-30T02:00:00.000Z', 'hold', 2, 2),
        decision('2026-11-30T03:00:00.000Z', 'scale-down', 2, 2),
        decision('2026-11-30T04:00:00.000Z', 'relabel', 2, 2),
        decision('2026-11-29T11:00:00.000Z', 'scale-down', 3, 2),
      ],
      T0,
      T0 + 86400,
    );
    expect(m.map((x) => x.action)).toEqual(['scale-up', 'relabel']);
    expect(m[0]!.label).toContain('1 → 2');
  });
});

describe('buildStatusView', () => {
  const v = buildStatusView(input());
  it('lists every pool with its nodes, GPU product and free/allocatable GPUs', () => {
    expect(v.pools.map((p) => p.pool)).toEqual(['test', 'unused', 'long-task', 'short-task']);
    const long = v.pools.find((p) => p.pool === 'long-task')!;
    expect(long.nodes.map((n) => [n.name, n.gpuProduct, n.freeGpus, n.allocatableGpus, n.condition])).toEqual(
      [['gpu-a100-07', 'NVIDIA-A100-SXM4-80GB', 0, 8, 'NotReady']],
    );
    expect([long.freeGpus, long.allocatableGpus]).toEqual([0, 8]);
  });
  it('shows a node in the pool the pass decided, saying its label is not applied yet', () => {
    const unused = v.pools.find((p) => p.pool === 'unused')!;
    expect(unused.nodes.map((n) => [n.name, n.freeGpus, n.labelPending])).toEqual([
      ['gpu-h100-02', 5, 'long-task'],
    ]);
    expect(v.pools.find((p) => p.pool === 'test')!.nodes[0]!.labelPending).toBeNull();
  });
  it('says why each GPU node is in no pool; nodes without GPUs are counted', () => {
    expect(v.leftOut.map((n) => [n.name, n.reason])).toEqual([
      ['gpu-mig-01', 'MIGOnly'],
      ['gpu-t4-09', 'Cordoned'],
    ]);
    expect(v.nodesWithoutGpu).toBe(1);
  });
  it('compares run time with the threshold (600.5 > 600: above)', () => {
    expect(v.algorithms[0]).toMatchObject({
      name: 'bert-train',
      side: 'above',
      replicas: 3,
      thresholdSeconds: 600,
    });
    const at = buildStatusView(
      input({
        fleet: { ...input().fleet!, algorithms: [{ ...input().fleet!.algorithms[0]!, runTimeSeconds: 600 }] },
      }),
    );
    expect(at.algorithms[0]!.side).toBe('at-or-below');
  });
  it('keeps benchmarks in flight and only open pull requests', () => {
    expect(v.benchmarks).toEqual([
      expect.objectContaining({ algorithm: 'bert-train', node: 'gpu-h100-01', phase: 'Running' }),
    ]);
    expect(v.openPullRequests.map((p) => p.number)).toEqual([12]);
  });
  it('an empty database still gives every section', () => {
    const e = buildStatusView(
      input({
        snapshot: null,
        fleet: null,
        samples: new Map(),
        history: new Map(),
        pullRequests: [],
        recentDecisions: [],
      }),
    );
    const text = renderStatusText(e);
    expect(text).toContain('no snapshot stored yet');
    expect(text).toContain('OPEN PULL REQUESTS\n  none');
    expect(renderStatusHtml(e)).toContain('No decisions recorded yet.');
  });
});

describe('renderStatusHtml', () => {
  it('is one self-contained document: an SVG chart with band, envelope and marker; no script; PR linked', () => {
    const html = renderStatusHtml(buildStatusView(input()));
    expect(html).toMatch(/<svg class="chart"/);
    expect(html).toContain('class="band"');
    expect(html).toContain('class="envelope"');
    expect(html).toContain('class="marker"');
    expect(html).toContain('<a href="https://github.example/o/r/pull/12">#12</a>');
    expect(html).not.toMatch(/<script|https?:\/\/(?!github\.example|www\.w3\.org\/2000\/svg)/);
  });
  it('names a GitLab merge request !iid, a GitHub or Gitea pull request #N, in the page and the text', () => {
    const mr = 'https://gitlab.example/o/r/-/merge_requests/7';
    const gitea = 'https://gitea.example/o/r/pulls/8';
    const both = input();
    both.pullRequests = [
      { ...both.pullRequests[0]!, number: 7, url: mr },
      { ...both.pullRequests[0]!, branch: 'gpuops/prod/scale/x', subject: 'x', number: 8, url: gitea },
    ];
    const view = buildStatusView(both);
    const html = renderStatusHtml(view);
    expect(html).toContain(`<a href="${mr}">!7</a>`);
    expect(html).toContain(`<a href="${gitea}">#8</a>`);
    const text = renderStatusText(view);
    expect(text).toMatch(new RegExp(`^  !7 +scale +bert-train +${mr} `, 'm'));
    expect(text).toMatch(new RegExp(`^  #8 +scale +x +${gitea} `, 'm'));
  });
  it('shows an algorithm held by a failed model cache fill, with why, in the page and the text', () => {
    const held = {
      reason: 'ModelCacheFillFailed',
      message: 'fill Job a/bert-train-model-cache-1 failed (<BackoffLimitExceeded>)',
    };
    const withHeld = input();
    withHeld.fleet = { ...withHeld.fleet!, algorithms: [{ ...withHeld.fleet!.algorithms[0]!, held }] };
    const view = buildStatusView(withHeld);
    expect(view.algorithms[0]!.held).toEqual(held);
    expect(renderStatusText(view)).toContain(`\n    ModelCacheFillFailed: ${held.message}\n`);
    expect(renderStatusHtml(view)).toContain(
      '<strong>ModelCacheFillFailed</strong>: fill Job a/bert-train-model-cache-1 failed (&lt;BackoffLimitExceeded&gt;)',
    );
    const plain = buildStatusView(input());
    expect(plain.algorithms[0]!.held).toBeUndefined();
    expect(renderStatusText(plain)).not.toContain('ModelCacheFillFailed');
  });
  it('escapes text from the database', () => {
    const bad = input();
    bad.recentDecisions = [{ ...decision('2026-11-30T11:10:00.000Z', 'hold', 1, 1), message: '<img src=x>' }];
    expect(renderStatusHtml(buildStatusView(bad))).toContain('&lt;img src=x&gt;');
  });
});
