/**
 * Rows for the pure pull-request text (src/change-sets/pr-body.ts), one rule a row: the desired hash
 * over files in any order, the marker's exact form (length limits, spaces), the order of every
 * table (runs, pods, moves, left-out nodes), which sections appear, and dashes for missing figures.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  desiredHash,
  parseDesiredHash,
  renderPrBody,
  stripHashMarker,
  type PrBodyInput,
  type ScalingEvidence,
} from '../../src/change-sets/pr-body.js';
import { prTitle } from '../../src/change-sets/pr-title.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import type { PodSample, ScalingDecision } from '../../src/scaling/types.js';

const HEX16 = '0123456789abcdef';

describe('desiredHash: the same files in any order give one hash', () => {
  const a = { path: 'a.yaml', content: 'A' };
  const b = { path: 'b.yaml', content: null };
  const c = { path: 'c.yaml', content: 'C' };
  // The documented form, hashed independently: `path NUL content NUL` by path, a deletion as \u0001deleted.
  const want = createHash('sha256').update('a.yaml\0A\0b.yaml\0\u0001deleted\0c.yaml\0C\0').digest('hex');

  it.each([
    ['sorted', [a, b, c]],
    ['reversed', [c, b, a]],
    ['middle first', [b, c, a]],
    ['last first', [c, a, b]],
  ])('%s', (_name, files) => {
    expect(desiredHash(files)).toBe(want);
  });

  it('a deleted file is not an empty file', () => {
    expect(desiredHash([{ path: 'a', content: null }])).not.toBe(desiredHash([{ path: 'a', content: '' }]));
  });
});

describe('parseDesiredHash: 16 to 128 lower-case hex digits, any spaces inside the comment', () => {
  it.each<[string, string, string | null]>([
    ['ExactlySixteenDigits', `<!-- gpuops:desired-hash=${HEX16} -->`, HEX16],
    [
      'ExactlyOneHundredTwentyEightDigits',
      `<!-- gpuops:desired-hash=${'a'.repeat(128)} -->`,
      'a'.repeat(128),
    ],
    ['OneHundredTwentyNineDigitsIsNoMarker', `<!-- gpuops:desired-hash=${'a'.repeat(129)} -->`, null],
    ['SeveralSpacesAndNewlines', `<!--  \n gpuops:desired-hash=${HEX16}\t \n-->`, HEX16],
    ['NonHexDigitIsNoMarker', `<!-- gpuops:desired-hash=${HEX16.slice(0, 15)}g -->`, null],
    ['MarkerInsideText', `before\n<!-- gpuops:desired-hash=${HEX16} -->\nafter`, HEX16],
    ['NoMarker', 'just text', null],
  ])('%s', (_name, body, want) => {
    expect(parseDesiredHash(body)).toBe(want);
  });
});

describe('stripHashMarker: every marker and its blank lines go, one newline stays between the text', () => {
  it.each<[string, string, string]>([
    ['NoSpacesInTheComment', 'a\n<!--gpuops:desired-hash=ab-->\nb', 'a\nb'],
    ['SeveralSpaces', 'a\n<!--   gpuops:desired-hash=ab   -->\nb', 'a\nb'],
    ['BlankLinesAround', 'a\n\n\n<!-- gpuops:desired-hash=ab -->\n\n\nb', 'a\nb'],
    ['AtTheEnd', 'text\n\n<!-- gpuops:desired-hash=ab -->\n', 'text'],
    ['UpperCaseHexIsNotOurs', 'a\n<!-- gpuops:desired-hash=AB -->', 'a\n<!-- gpuops:desired-hash=AB -->'],
    ['LeadingSpacesOfTheTextStay', '  a  \n', '  a'],
  ])('%s', (_name, body, want) => {
    expect(stripHashMarker(body)).toBe(want);
  });
});

const move = (
  node: string,
  from: PoolAssignment['from'],
  to: PoolAssignment['to'],
  reason: PoolAssignment['reason'] = 'Unused',
): PoolAssignment => ({ node, from, to, reason, message: `why ${node}` });

function decision(over: Partial<ScalingDecision> = {}): ScalingDecision {
  return {
    algorithm: 'bert',
    action: 'relabel',
    replicas: { from: 2, to: 3 },
    utilization: 91,
    nodes: ['gpu-x', 'gpu-y'],
    reason: 'RelabelUnusedNode',
    message: 'above max',
    ...over,
  };
}
const podSample = (namespace: string, pod: string, utilization: number, gpus = 1): PodSample => ({
  namespace,
  pod,
  utilization,
  at: '2025-01-01T00:00:00Z',
  gpus: Array.from({ length: gpus }, (_, i) => `GPU-${pod}-${i}`),
});
function scaleBody(ev: Partial<ScalingEvidence>, over: Partial<PrBodyInput> = {}): string {
  return renderPrBody({
    cluster: 'prod',
    kind: 'scale',
    subject: 'bert',
    files: [],
    desiredHash: HEX16,
    scaling: [{ decision: decision(), pods: [], min: 30, max: 80, minReplicas: 1, maxReplicas: 8, ...ev }],
    ...over,
  });
}

describe('renderPrBody: the scaling section', () => {
  it('names the moved nodes the message does not name, every one of them', () => {
    expect(scaleBody({})).toContain('\n\nUnused nodes moved into the pool: `gpu-x`, `gpu-y`.');
    expect(scaleBody({ decision: decision({ message: 'moving gpu-x' }) })).toContain(
      'Unused nodes moved into the pool: `gpu-x`, `gpu-y`.',
    );
    expect(scaleBody({ decision: decision({ message: 'moving gpu-x and gpu-y' }) })).not.toContain(
      'Unused nodes moved',
    );
    expect(scaleBody({ decision: decision({ nodes: [], action: 'scale-up' }) })).not.toContain(
      'Unused nodes moved',
    );
  });

  it('lists pods by namespace, then name, with their utilisation to one decimal and their GPU count', () => {
    const body = scaleBody({
      pods: [podSample('b', 'a', 10), podSample('a', 'z', 0, 2), podSample('a', 'y', 55.55, 3)],
    });
    expect(body).toContain(
      [
        '| namespace | pod | GPU utilisation (%) | GPUs |',
        '| --- | --- | --- | --- |',
        '| a | y | 55.5 | 3 |',
        '| a | z | 0.0 | 2 |',
        '| b | a | 10.0 | 1 |',
      ].join('\n'),
    );
  });

  it('the same pod name in two namespaces sorts by namespace', () => {
    const body = scaleBody({ pods: [podSample('ns-b', 'p', 2), podSample('ns-a', 'p', 1)] });
    expect(body).toContain('| ns-a | p | 1.0 | 1 |\n| ns-b | p | 2.0 | 1 |');
  });

  it('the decision row: utilisation, bounds, replicas with limits, action, reason', () => {
    const body = scaleBody({
      decision: decision({
        utilization: 0,
        replicas: { from: 4, to: 3 },
        action: 'scale-down',
        reason: 'BelowMin',
      }),
      min: 20.25,
      max: 70,
      minReplicas: 2,
      maxReplicas: 5,
    });
    expect(body).toContain('| 0.0 | 20.3 | 70.0 | 4 → 3 (limits 2..5) | scale-down | BelowMin |');
  });

  it('no pools given: no pools section; an empty list neither; a move: the section', () => {
    expect(scaleBody({})).not.toContain('### Node pools');
    expect(scaleBody({}, { pools: [] })).not.toContain('### Node pools');
    expect(scaleBody({}, { pools: [move('gpu-x', 'unused', 'long-task', 'MovedForScaleUp')] })).toContain(
      '### Node pools\n\n| node | from | to | reason | why |\n| --- | --- | --- | --- | --- |\n| gpu-x | unused | long-task | MovedForScaleUp | why gpu-x |',
    );
  });
});

describe('renderPrBody: placement runs', () => {
  it('by run number, missing figures as dashes', () => {
    const body = renderPrBody({
      cluster: 'prod',
      kind: 'placement',
      subject: 'llm',
      files: [],
      desiredHash: HEX16,
      placements: [
        {
          placement: {
            algorithm: 'llm',
            pool: 'long-task',
            runTimeSeconds: 700,
            reason: 'AboveThreshold',
            message: 'm',
            gpu: { products: ['Tesla-T4'], source: 'benchmark' },
          },
          runs: [
            { run: 3, status: 'Succeeded', durationSeconds: 700, node: 'gpu-c', gpuProduct: 'Tesla-T4' },
            { run: 1, status: 'Failed', durationSeconds: null, node: null },
            { run: 2, status: 'Succeeded', durationSeconds: 650.04, node: 'gpu-a' },
          ],
          longTaskThresholdSeconds: 600,
        },
      ],
    });
    expect(body).toContain('Runs longer than **600.0 s** (median) go to `long-task`');
    expect(body).toContain(
      '| llm | long-task | 700.0 | 600.0 | AboveThreshold | Tesla-T4 (benchmarked on) |',
    );
    expect(body).toContain(
      "Its pods run only on nodes labelled `nvidia.com/gpu.product` `Tesla-T4` (a required node affinity beside the pool's nodeSelector)",
    );
    expect(body).toContain(
      'Measured benchmark runs:\n\n| run | status | run time (s) | node | GPU product |\n| --- | --- | --- | --- | --- |\n| 1 | Failed | — | — | — |\n| 2 | Succeeded | 650.0 | gpu-a | — |\n| 3 | Succeeded | 700.0 | gpu-c | Tesla-T4 |',
    );
  });
});

describe('renderPrBody: node pools', () => {
  const body = (pools: PoolAssignment[]) =>
    renderPrBody({ cluster: 'prod', kind: 'pools', subject: 'pools', files: [], desiredHash: HEX16, pools });

  it('moves by node name; a node leaving every pool is a move to none, not left out', () => {
    const b = body([
      move('gpu-c', 'unused', null, 'ForeignWorkload'),
      move('gpu-a', null, 'unused'),
      move('gpu-b', 'long-task', 'long-task', 'KeepPool'),
    ]);
    expect(b).toContain(
      '| gpu-a | none | unused | Unused | why gpu-a |\n| gpu-c | unused | none | ForeignWorkload | why gpu-c |\n\n',
    );
    expect(b).not.toContain('gpu-b');
    expect(b).not.toContain('left out of every pool');
  });

  it('left out: in no pool before and after, by name, never a CPU node', () => {
    const b = body([
      move('gpu-z', null, null, 'NotReady'),
      move('cpu-1', null, null, 'NoGPU'),
      move('gpu-m', null, null, 'MIGOnly'),
    ]);
    expect(b).toContain('No node changes pool.');
    expect(b).toContain(
      'GPU nodes left out of every pool (2):\n\n| node | reason | why |\n| --- | --- | --- |\n| gpu-m | MIGOnly | why gpu-m |\n| gpu-z | NotReady | why gpu-z |',
    );
    expect(b).not.toContain('cpu-1');
  });

  it('left-out nodes already in name order stay in it', () => {
    const b = body([move('gpu-a', null, null, 'NotReady'), move('gpu-b', null, null, 'Cordoned')]);
    expect(b).toContain('| gpu-a | NotReady | why gpu-a |\n| gpu-b | Cordoned | why gpu-b |');
  });

  it('only nodes moving into test are test nodes', () => {
    const b = body([move('gpu-t', 'unused', 'test', 'TestPool'), move('gpu-u', 'test', 'unused')]);
    expect(b).toContain('`gpu-t` becomes the test node: test nodes are taken');
    expect(b).not.toContain('`gpu-u`');
  });
});

describe('prTitle without evidence', () => {
  it.each<[string, Omit<PrBodyInput, 'desiredHash' | 'files'>, string]>([
    [
      'placement with an empty evidence list',
      { cluster: 'c', kind: 'placement', subject: 'x', placements: [] },
      'gpuops(c): update placement of x',
    ],
    [
      'scale with an empty evidence list',
      { cluster: 'c', kind: 'scale', subject: 'x', scaling: [] },
      'gpuops(c): update scaling of x',
    ],
    [
      'scale without evidence, with a move of another node',
      { cluster: 'c', kind: 'scale', subject: 'x', pools: [move('gpu-q', 'unused', 'long-task')] },
      'gpuops(c): update scaling of x',
    ],
    [
      'a moved node whose pool entry is missing: the pool of the algorithm',
      {
        cluster: 'c',
        kind: 'scale',
        subject: 'bert',
        scaling: [
          {
            decision: decision({ nodes: ['gpu-x'], replicas: { from: 2, to: 2 } }),
            pods: [],
            min: 30,
            max: 80,
            minReplicas: 1,
            maxReplicas: 8,
          },
        ],
        pools: [move('gpu-q', 'unused', 'long-task')],
      },
      'gpuops(c): move gpu-x into the pool of bert so the Pending replica of bert can start',
    ],
    [
      'pools moving nodes into no pool and into unused: counted, unused before no pool',
      {
        cluster: 'c',
        kind: 'pools',
        subject: 'pools',
        pools: [
          move('gpu-b', 'unused', null),
          move('gpu-a', 'test', 'unused'),
          move('gpu-c', 'unused', null),
        ],
      },
      'gpuops(c): move 3 nodes: 1 into unused, 2 into no pool',
    ],
  ])('%s', (_name, input, want) => {
    expect(prTitle(input)).toBe(want);
  });
});
