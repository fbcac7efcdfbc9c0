/** Pull request text a reviewer reads once: titles that count the moved nodes, left-out nodes, escaped cells. */
import { describe, expect, it } from 'vitest';
import {
  desiredHash,
  parseDesiredHash,
  renderPrBody,
  stripHashMarker,
  withHashMarker,
} from '../../src/change-sets/pr-body.js';
import { prTitle, titleReplicas } from '../../src/change-sets/pr-title.js';
import { standbySplitText } from '../../src/change-sets/pr-text.js';
import type { Placement } from '../../src/placement/types.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

const pool = (
  node: string,
  from: PoolAssignment['from'],
  to: PoolAssignment['to'],
  reason: PoolAssignment['reason'],
  message: string,
): PoolAssignment => ({ node, from, to, reason, message });

function relabel(over: Partial<ScalingDecision>): ScalingDecision {
  return {
    algorithm: 'bert-train',
    action: 'relabel',
    replicas: { from: 2, to: 2 },
    utilization: 91,
    nodes: ['gpu-h100-01'],
    reason: 'RelabelUnusedNode',
    message: 'a replica is Pending and long-task has no free GPU: move gpu-h100-01 from unused',
    ...over,
  };
}
const scaleInput = (d: ScalingDecision, pools: PoolAssignment[]) => ({
  cluster: 'prod',
  kind: 'scale' as const,
  subject: 'bert-train',
  scaling: [{ decision: d, pods: [], min: 30, max: 80, minReplicas: 1, maxReplicas: 8 }],
  pools,
});

describe('prTitle', () => {
  it.each([
    [
      'one move, replicas unchanged: the Pending replica can start',
      scaleInput(relabel({}), [
        pool('gpu-h100-01', 'unused', 'long-task', 'MovedForScaleUp', 'for bert-train'),
      ]),
      'gpuops(prod): move gpu-h100-01 into long-task so the Pending replica of bert-train can start',
    ],
    [
      'two moves and a scale-up: every node named',
      scaleInput(relabel({ nodes: ['gpu-h100-03', 'gpu-h100-01'], replicas: { from: 2, to: 4 } }), [
        pool('gpu-h100-01', 'unused', 'long-task', 'MovedForScaleUp', 'x'),
        pool('gpu-h100-03', 'unused', 'long-task', 'MovedForScaleUp', 'x'),
      ]),
      'gpuops(prod): move gpu-h100-01 and gpu-h100-03 into long-task and scale bert-train from 2 to 4 replicas',
    ],
    [
      'a plain scale-up names no node',
      scaleInput(relabel({ action: 'scale-up', nodes: [], replicas: { from: 1, to: 2 } }), []),
      'gpuops(prod): scale bert-train from 1 to 2 replicas',
    ],
    [
      'a scale-down',
      scaleInput(relabel({ action: 'scale-down', nodes: [], replicas: { from: 3, to: 1 } }), []),
      'gpuops(prod): scale bert-train from 3 to 1 replicas',
    ],
    [
      'no replica change and no node: an update',
      scaleInput(relabel({ action: 'hold', nodes: [] }), []),
      'gpuops(prod): update scaling of bert-train',
    ],
    [
      'two moves without the pools entries: the pool of the algorithm, plural replicas',
      scaleInput(relabel({ nodes: ['gpu-b', 'gpu-a'] }), []),
      'gpuops(prod): move gpu-a and gpu-b into the pool of bert-train so the Pending replicas of bert-train can start',
    ],
    [
      'three moves: a list with commas',
      scaleInput(relabel({ nodes: ['gpu-c', 'gpu-a', 'gpu-b'] }), [
        pool('gpu-x', 'unused', 'short-task', 'MovedForScaleUp', 'other algorithm'),
        pool('gpu-b', 'unused', 'long-task', 'MovedForScaleUp', 'x'),
      ]),
      'gpuops(prod): move gpu-a, gpu-b and gpu-c into long-task so the Pending replicas of bert-train can start',
    ],
  ])('%s', (_, input, title) => {
    expect(prTitle(input)).toBe(title);
  });

  const placement = (pool: Placement['pool']): Placement => ({
    algorithm: 'resnet50-infer',
    pool,
    runTimeSeconds: pool ? 42 : null,
    reason: pool ? 'BelowThreshold' : 'BenchmarkPending',
    message: 'm',
  });
  it.each([
    ['short-task' as const, 'gpuops(prod): place resnet50-infer on short-task'],
    [null, 'gpuops(prod): update placement of resnet50-infer'],
  ])('placement on %s', (p, title) => {
    const input = {
      cluster: 'prod',
      kind: 'placement' as const,
      subject: 'resnet50-infer',
      placements: [{ placement: placement(p), runs: [], longTaskThresholdSeconds: 600 }],
    };
    expect(prTitle(input)).toBe(title);
  });

  it('placement without evidence, pools without a move', () => {
    expect(prTitle({ cluster: 'prod', kind: 'placement', subject: 'resnet50-infer' })).toBe(
      'gpuops(prod): update placement of resnet50-infer',
    );
    expect(
      prTitle({
        cluster: 'prod',
        kind: 'pools',
        subject: 'pools',
        pools: [pool('gpu-d', 'test', 'test', 'KeepPool', 'kept')],
      }),
    ).toBe('gpuops(prod): update GPU node pools');
    expect(
      prTitle({
        cluster: 'prod',
        kind: 'pools',
        subject: 'pools',
        pools: [pool('gpu-f', 'unused', null, 'ForeignWorkload', 'x')],
      }),
    ).toBe('gpuops(prod): move 1 node into no pool');
  });

  it('the pools title counts the nodes it moves by pool (the names are in the body)', () => {
    expect(
      prTitle({
        cluster: 'prod',
        kind: 'pools',
        subject: 'pools',
        pools: [
          pool('gpu-b', null, 'unused', 'Unused', 'idle'),
          pool('gpu-a', null, 'test', 'TestPool', 'becomes test: 1 of 1 test nodes'),
          pool('gpu-c', null, 'unused', 'Unused', 'idle'),
          pool('gpu-d', 'test', 'test', 'KeepPool', 'kept'),
        ],
      }),
    ).toBe('gpuops(prod): move 3 nodes: 1 into test, 2 into unused');
  });
});

describe('renderPrBody', () => {
  const body = renderPrBody({
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files: [{ path: 'clusters/prod/nodes/gpu-a.yaml', change: 'create' }],
    desiredHash: 'b'.repeat(64),
    pools: [
      pool('gpu-a', null, 'test', 'TestPool', 'becomes test: 1 of 1 test nodes'),
      pool('gpu-mig', null, null, 'MIGOnly', 'GPUs are partitioned by MIG | mixed strategy'),
      pool('gpu-t4', null, null, 'Cordoned', 'cordoned (spec.unschedulable)'),
      pool('cpu-1', null, null, 'NoGPU', 'no nvidia.com/gpu capacity: not a GPU node'),
    ],
  });

  it('lists the GPU nodes left out of every pool with their reason, pipes escaped; CPU nodes not', () => {
    expect(body).toContain('GPU nodes left out of every pool (2):');
    expect(body).toContain('| gpu-mig | MIGOnly | GPUs are partitioned by MIG \\| mixed strategy |');
    expect(body).toContain('| gpu-t4 | Cordoned | cordoned (spec.unschedulable) |');
    expect(body).not.toContain('cpu-1');
  });

  it('says why this node became the test node, once', () => {
    expect(body).toContain('`gpu-a` becomes the test node: test nodes are taken, in name order');
    const sentences = body
      .replace(/<!--.*-->/g, '')
      .split(/(?<=[.:])\s+|\n/)
      .map((x) => x.trim())
      .filter((x) => x.length > 20 && !x.startsWith('|'));
    expect(sentences.length).toBe(new Set(sentences).size);
  });

  it('a relabel whose message names the node does not say it again', () => {
    const b = renderPrBody({
      ...scaleInput(relabel({}), [
        pool('gpu-h100-01', 'unused', 'long-task', 'MovedForScaleUp', 'for bert-train'),
      ]),
      files: [],
      desiredHash: 'c'.repeat(64),
    });
    expect(b.match(/gpu-h100-01/g)!.length).toBeLessThanOrEqual(3); // title, message, pools table
    expect(b).not.toContain('Unused nodes moved into the pool');
  });
});

describe('titleReplicas', () => {
  it.each([
    ['gpuops(prod): scale bert from 2 to 4 replicas', 'bert', { from: 2, to: 4 }],
    [
      'gpuops(prod): move gpu-a into long-task and scale bert from 10 to 12 replicas',
      'bert',
      { from: 10, to: 12 },
    ],
    ['gpuops(prod): scale bert from 2 to 4 replicas', 'bert-train', null],
    ['gpuops(prod): scale bert from 2 to 4 replicas, as agreed', 'bert', null],
    ['gpuops(prod): move gpu-a into long-task so the Pending replica of bert can start', 'bert', null],
    // With claimed standby pods the numbers are the Deployment's in Git, the total follows.
    [
      'gpuops(prod): scale bert from 2 to 3 replicas (3 → 5 with claimed standby pods)',
      'bert',
      { from: 2, to: 3 },
    ],
    ['gpuops(prod): scale bert from 2 to 3 replicas (3 → 5 as agreed)', 'bert', null],
  ])('%s (subject %s)', (title, subject, want) => {
    expect(titleReplicas(title, subject)).toEqual(want);
  });
});

describe('desired-hash marker', () => {
  it.each([
    ['<!-- gpuops:desired-hash=0123456789abcdef -->', '0123456789abcdef'],
    ['text\n<!--gpuops:desired-hash=0123456789abcdef-->', '0123456789abcdef'],
    ['<!-- gpuops:desired-hash=0123456789abcde -->', null], // 15 hex digits: too short
    ['<!-- gpuops:desired-hash=0123456789ABCDEF -->', null],
    [null, null],
    [undefined, null],
  ])('%j → %s', (body, want) => {
    expect(parseDesiredHash(body)).toBe(want);
  });

  it('strips every marker and the blank lines around it, keeps the text', () => {
    expect(
      stripHashMarker('a\n\n<!-- gpuops:desired-hash=abc -->\n\nb\n<!-- gpuops:desired-hash= -->\n'),
    ).toBe('a\nb');
    expect(withHashMarker('text  \n', '0123456789abcdef')).toBe(
      'text\n\n<!-- gpuops:desired-hash=0123456789abcdef -->\n',
    );
  });

  it('hashes path and content apart: moving a byte from path to content changes the hash', () => {
    expect(desiredHash([{ path: 'ab', content: 'c' }])).not.toBe(desiredHash([{ path: 'a', content: 'bc' }]));
    expect(desiredHash([])).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('renderPrBody cells and sections', () => {
  const base = { cluster: 'prod', subject: 'pools', desiredHash: 'd'.repeat(64) };

  it('escapes backslashes and pipes, folds CRLF and LF, shows an empty cell as a dash', () => {
    const b = renderPrBody({
      ...base,
      kind: 'pools',
      files: [],
      pools: [
        pool('gpu-a', null, null, 'Tainted', 'tainted a\\b | c\r\nd\ne'),
        pool('gpu-b', null, null, 'Cordoned', ''),
      ],
    });
    expect(b).toContain('| gpu-a | Tainted | tainted a\\\\b \\| c d e |');
    expect(b).toContain('| gpu-b | Cordoned | — |');
  });

  it('no move, no file: says so; several test nodes: plural; left-out nodes by name', () => {
    const none = renderPrBody({ ...base, kind: 'pools', files: [], pools: [] });
    expect(none).toContain('### Node pools\n\nNo node changes pool.\n');
    expect(none).toContain('### Files\n\nNo file differs from the base branch.\n');
    expect(none).toContain(
      'gpuops sorts the GPU nodes of cluster `prod` into pools (label `gpuops.dev/pool`).',
    );
    const two = renderPrBody({
      ...base,
      kind: 'pools',
      files: [
        { path: 'b.yaml', change: 'update' },
        { path: 'a.yaml', change: 'create' },
      ],
      pools: [
        pool('gpu-z', null, null, 'NotReady', 'z'),
        pool('gpu-b', null, 'test', 'TestPool', 'x'),
        pool('gpu-a', 'unused', 'test', 'TestPool', 'y'),
        pool('gpu-y', null, null, 'Cordoned', 'y'),
      ],
    });
    expect(two).toContain('`gpu-a` and `gpu-b` become test nodes: test nodes are taken');
    expect(two).toContain('| gpu-a | unused | test | TestPool | y |\n| gpu-b | none | test | TestPool | x |');
    expect(two).toContain('GPU nodes left out of every pool (2):');
    expect(two).toContain('| gpu-y | Cordoned | y |\n| gpu-z | NotReady | z |');
    expect(two).toContain('| `a.yaml` | create |\n| `b.yaml` | update |');
  });

  it('a placement without a measured run: no run table, dashes for missing figures', () => {
    const b = renderPrBody({
      ...base,
      kind: 'placement',
      subject: 'resnet50-infer',
      files: [],
      placements: [
        {
          placement: {
            algorithm: 'resnet50-infer',
            pool: null,
            runTimeSeconds: null,
            reason: 'BenchmarkPending',
            message: 'no run',
          },
          runs: [],
          longTaskThresholdSeconds: Number.NaN,
        },
      ],
    });
    expect(b).toContain('gpuops places `resnet50-infer` on the pool its measured run time calls for.');
    expect(b).toContain('| resnet50-infer | — | — | — | BenchmarkPending |');
    expect(b).not.toContain('Measured benchmark runs');
    expect(b).not.toContain('### Node pools');
  });

  it('a scale decision whose message names every moved node, and no per-pod samples', () => {
    const b = renderPrBody({
      ...scaleInput(relabel({ nodes: ['gpu-h100-01'], utilization: Number.POSITIVE_INFINITY }), []),
      files: [],
      desiredHash: 'c'.repeat(64),
    });
    expect(b).toContain('| — | 30.0 | 80.0 | 2 → 2 (limits 1..8) | relabel | RelabelUnusedNode |');
    expect(b).not.toContain('Per-pod GPU utilisation');
    expect(b).not.toContain('Unused nodes moved into the pool');
    expect(b).not.toContain('### Node pools');
  });
});

describe('what standby pods carry of a scale change, said in its title and body', () => {
  const d = (from: number, to: number, standby?: ScalingDecision['standby']): ScalingDecision => ({
    algorithm: 'bert',
    action: to > from ? 'scale-up' : to < from ? 'scale-down' : 'hold',
    replicas: { from, to },
    utilization: 90,
    nodes: [],
    reason: 'AboveMax',
    message: 'bert: …',
    ...(standby ? { standby } : {}),
  });
  const sb = (claimed: number, claim: number, giveBack: number, deployment: number) => ({
    set: 'llm',
    claimed,
    claim,
    giveBack,
    deployment,
  });
  it.each([
    // [case, decision, title's clause, the body's line (null: none)]
    ['no standby set', d(1, 2), 'scale bert from 1 to 2 replicas', null],
    ['a standby set that takes no part', d(1, 2, sb(0, 0, 0, 1)), 'scale bert from 1 to 2 replicas', null],
    [
      '3 → 5: one claimed before, one now, Deployment 2 → 3',
      d(3, 5, sb(1, 1, 0, 1)),
      'scale bert from 2 to 3 replicas (3 → 5 with claimed standby pods)',
      '3 → 5: 1 claimed standby pod counted in 3, 1 standby pod claimed now; Deployment 2 → 3 in Git, which with the 2 claimed pods makes 5',
    ],
    [
      'a scale-down that gives both claimed pods back and lowers the Deployment',
      d(4, 1, sb(2, 0, 2, -1)),
      'scale bert from 2 to 1 replicas (4 → 1 with claimed standby pods)',
      '4 → 1: 2 claimed standby pods counted in 4, 2 claimed pods given back; Deployment 2 → 1 in Git, no claimed pod left',
    ],
    [
      'claims alone: Git keeps its count (no file, so no title; the body says why)',
      d(1, 2, sb(0, 1, 0, 0)),
      'update scaling of bert',
      '1 → 2: 1 standby pod claimed now; Deployment stays at 1 in Git, which with the 1 claimed pod makes 2',
    ],
  ] as const)('%s', (_, decision, clause, line) => {
    const ev = { decision, pods: [], min: 30, max: 80, minReplicas: 1, maxReplicas: 6 };
    expect(prTitle({ cluster: 'prod', kind: 'scale', subject: 'bert', scaling: [ev] })).toBe(
      `gpuops(prod): ${clause}`,
    );
    expect(standbySplitText(decision)).toBe(line);
    const body = renderPrBody({
      cluster: 'prod',
      kind: 'scale',
      subject: 'bert',
      files: [],
      scaling: [ev],
      desiredHash: 'h',
    });
    if (line) expect(body).toContain(`Standby pods: ${line}.`);
    else expect(body).not.toContain('Standby pods:');
  });
});
