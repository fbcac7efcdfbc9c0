/**
 * Pull-request bodies fit GitHub's 65,536 characters at any fleet size (issue 23 item 2): a
 * pools body of 400 nodes was ~97,000 characters. Cut with counts, the first rows and "… and N
 * more", the desired-hash marker intact, the whole text kept for `gpuops prs show`. Rows on each
 * side of the limit (a body of exactly 65,536 characters is sent whole, one of 65,537 is cut),
 * and fleets of 2,000 and 10,000 nodes.
 */
import { describe, expect, it } from 'vitest';
import { buildChangeSet, groupChangeSets } from '../../src/change-sets/change-set.js';
import { fitText, GITHUB_BODY_MAX } from '../../src/change-sets/host-limits.js';
import {
  fitPrBody,
  parseDesiredHash,
  renderPrBody,
  type PrBodyInput,
} from '../../src/change-sets/pr-body.js';
import type { PoolAssignment } from '../../src/pools/types.js';

const HASH = 'd'.repeat(64);
/** EKS-style names, as F01's; `i` zero-padded so that name order is index order. */
const node = (i: number) => `ip-10-${String(i).padStart(5, '0')}.us-west-2.compute.internal`;

/** A first pools pass over `n` nodes: the first is the test node, the rest go to unused. */
function fleet(
  n: number,
  message = 'GPU node, Ready, schedulable, no foreign workload: unused',
): PrBodyInput {
  const pools: PoolAssignment[] = Array.from({ length: n }, (_, i) => ({
    node: node(i),
    from: null,
    to: i === 0 ? 'test' : 'unused',
    reason: i === 0 ? 'TestPool' : 'Unused',
    message,
  }));
  return {
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files: pools.map((p) => ({ path: `clusters/prod/nodes/${p.node}.yaml`, change: 'create' as const })),
    desiredHash: HASH,
    pools,
  };
}

describe('fitPrBody at fleet sizes', () => {
  it.each([2_000, 10_000])('%i nodes: at most 65,536 characters, counts, first rows, marker', (n) => {
    const input = fleet(n);
    const { body, full } = fitPrBody(input);
    expect(body.length).toBeLessThanOrEqual(GITHUB_BODY_MAX);
    expect(parseDesiredHash(body)).toBe(HASH);
    expect(body.endsWith(`<!-- gpuops:desired-hash=${HASH} -->\n`)).toBe(true);
    expect(body.split('\n')[0]).toBe(
      `## gpuops(prod): move ${n.toLocaleString('en-US')} nodes: 1 into test, ${(n - 1).toLocaleString('en-US')} into unused`,
    );
    // The first rows by node name, then how many more: nodes and files both add up to n.
    const rows = (prefix: string) => body.split('\n').filter((l) => l.startsWith(prefix)).length;
    const more = [...body.matchAll(/^… and ([\d,]+) more (nodes|files)$/gm)].map((m) => [
      m[2],
      Number(m[1]!.replace(/,/g, '')),
    ]);
    expect(more).toEqual([
      ['nodes', n - rows('| ip-10-')],
      ['files', n - rows('| `clusters/prod/nodes/')],
    ]);
    expect(body).toContain(`| ${node(0)} | none | test | TestPool |`);
    expect(body).toContain("The whole text is in gpuops's records");
    // The whole text names every node.
    expect(full).not.toBeNull();
    for (const i of [0, 1, n - 1]) expect(full).toContain(`| ${node(i)} | none |`);
    expect(full!.length).toBeGreaterThan(GITHUB_BODY_MAX);
  });

  it('a small fleet is not cut', () => {
    const { body, full } = fitPrBody(fleet(12));
    expect(full).toBeNull();
    expect(body).toBe(renderPrBody(fleet(12)));
    expect(body).not.toContain('more nodes');
  });
});

describe('fitPrBody at the limit', () => {
  /** A fleet of 300 nodes whose last message is padded so that the whole body is `length` long. */
  const sized = (length: number): PrBodyInput => {
    const input = fleet(300, 'm');
    const base = renderPrBody(input).length;
    const pools = [...input.pools!];
    pools[299] = { ...pools[299]!, message: `m${'x'.repeat(length - base)}` };
    return { ...input, pools };
  };

  it('ExactlyTheLimit: sent whole', () => {
    const input = sized(GITHUB_BODY_MAX);
    expect(renderPrBody(input).length).toBe(GITHUB_BODY_MAX);
    const { body, full } = fitPrBody(input);
    expect(full).toBeNull();
    expect(body.length).toBe(GITHUB_BODY_MAX);
  });

  it('OneOver: cut, and the whole text kept', () => {
    const input = sized(GITHUB_BODY_MAX + 1);
    const { body, full } = fitPrBody(input);
    expect(full!.length).toBe(GITHUB_BODY_MAX + 1);
    expect(body.length).toBeLessThanOrEqual(GITHUB_BODY_MAX);
    expect(body).toMatch(/^… and [\d,]+ more nodes$/m);
    expect(parseDesiredHash(body)).toBe(HASH);
  });

  it('prose alone over the limit: cut by lines, the marker kept', () => {
    const input: PrBodyInput = {
      cluster: 'prod',
      kind: 'scale',
      subject: 'bert',
      files: [],
      desiredHash: HASH,
      scaling: [
        {
          decision: {
            algorithm: 'bert',
            action: 'scale-up',
            replicas: { from: 1, to: 2 },
            utilization: 95,
            nodes: [],
            reason: 'AboveMax',
            message: 'long line\n'.repeat(10_000),
          },
          pods: [],
          min: 30,
          max: 80,
          minReplicas: 1,
          maxReplicas: 8,
        },
      ],
    };
    const { body, full } = fitPrBody(input);
    expect(full!.length).toBeGreaterThan(100_000);
    expect(body.length).toBeLessThanOrEqual(GITHUB_BODY_MAX);
    expect(body).toContain("\n\n… cut to fit 65,536 characters; the whole text is in gpuops's records");
    expect(parseDesiredHash(body)).toBe(HASH);
  });
});

describe('fitText', () => {
  const marker = `<!-- gpuops:desired-hash=${HASH} -->`;
  it.each<[string, string, (out: string) => void]>([
    [
      'ExactlyTheLimitStays',
      'a'.repeat(GITHUB_BODY_MAX),
      (out) => expect(out).toBe('a'.repeat(GITHUB_BODY_MAX)),
    ],
    [
      'OneOverIsCutAndSaysWhere',
      `${'line\n'.repeat(13_107)}x\n`,
      (out) => expect(out).toMatch(/\n\n… cut to fit 65,536 characters; see the log\n$/),
    ],
    [
      'TheTrailingMarkerSurvives',
      `${'line\n'.repeat(20_000)}\n${marker}\n`,
      (out) => expect(out.endsWith(`see the log\n\n${marker}\n`)).toBe(true),
    ],
  ])('%s', (_name, text, check) => {
    const out = fitText(text, 'see the log');
    expect(out.length).toBeLessThanOrEqual(GITHUB_BODY_MAX);
    check(out);
  });
});

describe('change sets carry the cut body and the whole one', () => {
  const pools = fleet(2_000).pools!;
  const files = pools.map((p) => ({
    path: `clusters/prod/nodes/${p.node}.yaml`,
    content: `name: ${p.node}\n`,
  }));
  const cs = buildChangeSet({
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files,
    current: new Map(),
    pools,
  })!;

  it('body ≤ 65,536 with the change set’s hash; fullBody the whole text', () => {
    expect(cs.body.length).toBeLessThanOrEqual(GITHUB_BODY_MAX);
    expect(parseDesiredHash(cs.body)).toBe(cs.desiredHash);
    expect(cs.fullBody).toContain(`| ${node(1999)} |`);
    expect(parseDesiredHash(cs.fullBody)).toBe(cs.desiredHash);
  });

  it('two change sets of one branch joined: still ≤ 65,536, the whole text of both kept', () => {
    const other = { ...cs, files: [{ path: 'clusters/prod/nodes/extra.yaml', content: 'x\n' }] };
    const [joined] = groupChangeSets([cs, other]).changeSets;
    expect(joined!.body.length).toBeLessThanOrEqual(GITHUB_BODY_MAX);
    expect(parseDesiredHash(joined!.body)).toBe(joined!.desiredHash);
    expect(joined!.fullBody!.split(`| ${node(1999)} |`)).toHaveLength(3);
  });

  it('a small change set has no fullBody', () => {
    const small = buildChangeSet({
      cluster: 'prod',
      kind: 'pools',
      subject: 'pools',
      files: files.slice(0, 3),
      current: new Map(),
      pools: pools.slice(0, 3),
    })!;
    expect(small.fullBody).toBeUndefined();
  });
});
