/**
 * Pull-request titles fit GitHub's 256 characters (issue 23 item 1) and say when they create a
 * Namespace or a RoleBinding (issue 29 item 1). Rows on each side of every boundary: a named title
 * of exactly 256 characters stays named, one of 257 gives way to counts.
 */
import { describe, expect, it } from 'vitest';
import type { CreatedObject } from '../../src/change-sets/created-objects.js';
import { fitTitle, GITHUB_TITLE_MAX } from '../../src/change-sets/host-limits.js';
import { prTitle, type TitleInput } from '../../src/change-sets/pr-title.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

const eks = (i: number) => `ip-10-20-${130 + i}-${41 + 3 * i}.us-west-2.compute.internal`;
const move = (
  node: string,
  to: PoolAssignment['to'],
  from: PoolAssignment['from'] = null,
): PoolAssignment => ({
  node,
  from,
  to,
  reason: to === 'test' ? 'TestPool' : 'Unused',
  message: 'm',
});
const pools = (assignments: PoolAssignment[], creates: CreatedObject[] = []): TitleInput => ({
  cluster: 'prod',
  kind: 'pools',
  subject: 'pools',
  pools: assignments,
  creates,
});
const namespace = (name: string): CreatedObject => ({
  kind: 'Namespace',
  name,
  namespace: name,
  action: 'create',
  role: null,
  subjects: [],
});
const binding = (ns: string, action: CreatedObject['action'] = 'create'): CreatedObject => ({
  kind: 'RoleBinding',
  name: 'gpuops-benchmark',
  namespace: ns,
  action,
  role: 'ClusterRole/gpuops-benchmark',
  subjects: ['ServiceAccount gpuops-system/gpuops'],
});
/** A relabel of `nodes` for `bert` (no replica change): the title names the nodes when it can. */
const relabel = (nodes: string[]): TitleInput => {
  const decision: ScalingDecision = {
    algorithm: 'bert',
    action: 'relabel',
    replicas: { from: 2, to: 2 },
    utilization: 91,
    nodes,
    reason: 'RelabelUnusedNode',
    message: 'm',
  };
  return {
    cluster: 'prod',
    kind: 'scale',
    subject: 'bert',
    scaling: [{ decision, pods: [], min: 30, max: 80, minReplicas: 1, maxReplicas: 8 }],
    pools: nodes.map((n) => move(n, 'long-task', 'unused')),
  };
};
/** A node name that makes the named relabel title exactly `length` characters long. */
const nameFor = (length: number) => {
  const base = prTitle(relabel(['x'])).length - 1;
  return `gpu-${'x'.repeat(length - base - 4)}`;
};

describe('prTitle: counts, never names, in the pools title', () => {
  it.each<[string, TitleInput, string]>([
    [
      'F01: twelve EKS nodes (570 characters by name) and the namespace they need',
      pools(
        Array.from({ length: 12 }, (_, i) => move(eks(i), i === 0 ? 'test' : 'unused')),
        [namespace('algorithms'), binding('algorithms')],
      ),
      'gpuops(prod): create Namespace algorithms with RoleBinding gpuops-benchmark; move 12 nodes: 1 into test, 11 into unused',
    ],
    ['OneNodeOnePool', pools([move('gpu-a', 'test')]), 'gpuops(prod): move 1 node into test'],
    [
      'TenThousandNodes',
      pools(Array.from({ length: 10_000 }, (_, i) => move(`n-${i}`, i < 2 ? 'test' : 'unused'))),
      'gpuops(prod): move 10,000 nodes: 2 into test, 9,998 into unused',
    ],
    [
      'PoolsInTheirFixedOrderWhateverTheNodeOrder',
      pools([move('a', null, 'unused'), move('b', 'short-task'), move('c', 'long-task'), move('d', 'test')]),
      'gpuops(prod): move 4 nodes: 1 into test, 1 into long-task, 1 into short-task, 1 into no pool',
    ],
    [
      'NoMoveButANamespace: the grant alone',
      pools([move('a', 'test', 'test')], [namespace('vision'), binding('vision')]),
      'gpuops(prod): create Namespace vision with RoleBinding gpuops-benchmark',
    ],
    ['NoMoveNoGrant', pools([move('a', 'test', 'test')]), 'gpuops(prod): update GPU node pools'],
    [
      'kube-system is named, not hidden behind a node move',
      pools([move('a', 'test')], [namespace('kube-system'), binding('kube-system')]),
      'gpuops(prod): create Namespace kube-system with RoleBinding gpuops-benchmark; move 1 node into test',
    ],
    [
      'a RoleBinding in a Namespace that exists, and a changed one',
      pools([], [binding('team-a'), binding('team-b', 'change')]),
      'gpuops(prod): create RoleBinding gpuops-benchmark in team-a; change RoleBinding gpuops-benchmark in team-b',
    ],
  ])('%s', (_name, input, want) => {
    const title = prTitle(input);
    expect(title).toBe(want);
    expect(title.length).toBeLessThanOrEqual(GITHUB_TITLE_MAX);
  });
});

describe('prTitle: names while they fit, counts past 256 characters', () => {
  it('a scale title of exactly 256 characters names its node; at 257 it counts', () => {
    const at256 = prTitle(relabel([nameFor(256)]));
    expect(at256).toBe(
      `gpuops(prod): move ${nameFor(256)} into long-task so the Pending replica of bert can start`,
    );
    expect(at256.length).toBe(256);
    expect(prTitle(relabel([nameFor(257)]))).toBe(
      'gpuops(prod): move 1 node into long-task so the Pending replica of bert can start',
    );
  });

  /** Four namespaces, the last one's name padded so that the named title is `length` long. */
  const grants = (length: number): CreatedObject[] => {
    const objects = ['n0', 'n1', 'n2', 'n3'].map(namespace);
    const named = prTitle(pools([], objects), Number.POSITIVE_INFINITY).length;
    const name = `n3${'z'.repeat(length - named)}`;
    return [...objects.slice(0, -1), namespace(name)];
  };
  it('grants of exactly 256 characters are named; at 257 they are counted', () => {
    const at256 = prTitle(pools([], grants(256)));
    expect(at256.length).toBe(256);
    expect(at256).toMatch(
      /^gpuops\(prod\): create Namespace n0, Namespace n1, Namespace n2 and Namespace n3z+$/,
    );
    expect(prTitle(pools([], grants(257)))).toBe('gpuops(prod): create 4 Namespaces');
  });
});

describe('fitTitle: the last resort cut', () => {
  it.each<[string, string, string]>([
    ['ExactlyTheLimitStays', 'a'.repeat(256), 'a'.repeat(256)],
    ['OneOverIsCutWithAnEllipsis', 'a'.repeat(257), `${'a'.repeat(255)}…`],
    ['ACharacterOfTwoUnitsIsNeverSplit', `${'a'.repeat(254)}😀xx`, `${'a'.repeat(254)}…`],
  ])('%s', (_name, title, want) => {
    expect(fitTitle(title)).toBe(want);
    expect(fitTitle(title).length).toBeLessThanOrEqual(256);
  });
});
