/**
 * The plan's steps kept while the base branch has not moved (`plan/kept-steps.ts`): Git's read
 * model, the pools change set and the placement change sets. On a hit and on every kind of miss
 * (a changed file under `clusters/<cluster>/`, a changed spec, a changed placement, another label
 * key) a reconciler's plan equals the plan made afresh with the plain steps.
 */
import { describe, expect, it } from 'vitest';
import { planDesiredState, type DesiredStateInput } from '../../src/plan/desired-state.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { RenderCache } from '../../src/manifests/yaml.js';
import {
  createKeptSteps,
  keptGitModel,
  keptPlacementChanges,
  keptPoolChanges,
  keptReplicaPod,
  sameRecords,
} from '../../src/plan/kept-steps.js';
import { placementChanges, type PlacementChangesInput } from '../../src/plan/placement.js';
import { poolChanges, type PoolChangesInput } from '../../src/plan/pool-changes.js';
import { replicaPod } from '../../src/plan/scaling.js';
import { plainLookups } from '../../src/plan/lookups.js';
import { createReconcilerMemory, rememberedLookups, type ReconcilerMemory } from '../../src/plan/memory.js';
import { noData, now, policy, snapshot, templates } from '../support/cluster-mixed.js';
import { benchmarkOk, resolvedAlgorithm } from '../support/resolved-algorithm.js';

const LABEL = 'gpuops.dev/pool';

/** Algorithm `name`, with `image` in place of `registry.example.com/ml/<name>:1.0.0` when given. */
const alg = (name: string, image?: string) =>
  resolvedAlgorithm(name, image ? { spec: { image, resources: { gpus: 1 } } } : {});

const ALGORITHMS = [alg('bert'), alg('llm')];
const BENCHMARKS = new Map([
  ['bert', benchmarkOk(40)],
  ['llm', benchmarkOk(5000)],
]);

function input(base: ReadonlyMap<string, string>, over: Partial<DesiredStateInput> = {}): DesiredStateInput {
  return {
    cluster: 'prod',
    repo: { policy, errors: [], algorithms: ALGORITHMS },
    snapshot,
    base,
    benchmarks: BENCHMARKS,
    reading: noData,
    recent: [],
    templates,
    now,
    ...over,
  };
}

/** The base branch after the pools change set merged (the placements still open). */
function poolsMerged(): Map<string, string> {
  const out = new Map<string, string>();
  const pools = planDesiredState(input(out)).changeSets.find((c) => c.branch === 'gpuops/prod/pools')!;
  for (const f of pools.files) if (f.content !== null) out.set(f.path, f.content);
  return out;
}

/** A pass of a reconciler with `memory`, and the same pass planned afresh: the two must be equal. */
function both(memory: ReconcilerMemory, i: DesiredStateInput) {
  const kept = planDesiredState({ ...i, lookups: rememberedLookups(memory) });
  const fresh = planDesiredState({ ...i, lookups: plainLookups });
  return { kept, fresh };
}

/** The snapshot as the next pass reads it: equal nodes, but new objects. */
const rebuilt = () => ({ ...snapshot, nodes: snapshot.nodes.map((n) => ({ ...n })) });

describe('keptGitModel', () => {
  const base = poolsMerged();
  const nodePath = [...base.keys()].find((p) => p.startsWith('clusters/prod/nodes/'))!;
  const parse = plainLookups.parse;

  it('is the same model while the files are the same, also read again into a new map', () => {
    const kept = createKeptSteps();
    const first = keptGitModel(kept, 'prod', base, LABEL, parse);
    expect(first).toEqual(readGitModel('prod', base, LABEL));
    expect(keptGitModel(kept, 'prod', new Map(base), LABEL, parse)).toBe(first);
    // A moved head that changes nothing under clusters/prod/ (a spec edit, another cluster's file).
    const elsewhere = new Map([...base, ['clusters/staging/nodes/x.yaml', 'kind: Node\n']]);
    expect(keptGitModel(kept, 'prod', new Map(base), LABEL, parse)).toBe(first);
    expect(keptGitModel(kept, 'prod', elsewhere, LABEL, parse)).not.toBe(first);
  });

  it.each([
    [
      'a node manifest relabelled',
      (m: Map<string, string>) =>
        m.set(nodePath, m.get(nodePath)!.replace(/gpuops\.dev\/pool: \S+/, 'gpuops.dev/pool: long-task')),
    ],
    ['a file removed', (m: Map<string, string>) => m.delete(nodePath)],
    [
      'a file added',
      (m: Map<string, string>) => m.set('clusters/prod/algorithms/x/deployment.yaml', 'kind: Deployment\n'),
    ],
  ])('builds afresh when %s', (_, change) => {
    const kept = createKeptSteps();
    const first = keptGitModel(kept, 'prod', base, LABEL, parse);
    const moved = new Map(base);
    change(moved);
    const next = keptGitModel(kept, 'prod', moved, LABEL, parse);
    expect(next).not.toBe(first);
    expect(next).toEqual(readGitModel('prod', moved, LABEL));
    expect(next).not.toEqual(first);
    // The new model is kept in turn.
    expect(keptGitModel(kept, 'prod', new Map(moved), LABEL, parse)).toBe(next);
  });

  it('builds afresh for another cluster or label key', () => {
    const kept = createKeptSteps();
    const first = keptGitModel(kept, 'prod', base, LABEL, parse);
    const other = keptGitModel(kept, 'prod', base, 'example.com/pool', parse);
    expect(other).not.toBe(first);
    expect(other).toEqual(readGitModel('prod', base, 'example.com/pool'));
    expect([...other.nodePools.values()].every((p) => p === null)).toBe(true);
    expect(keptGitModel(kept, 'staging', base, LABEL, parse)).toEqual(readGitModel('staging', base, LABEL));
  });
});

describe('a reconciler’s plan with kept steps', () => {
  it('equals the fresh plan on a hit, and keeps the change sets it planned', () => {
    const memory = createReconcilerMemory();
    const base = poolsMerged();
    const first = both(memory, input(base));
    expect(first.kept).toEqual(first.fresh);
    expect(first.kept.changeSets.map((c) => c.branch)).toEqual([
      'gpuops/prod/placement/bert',
      'gpuops/prod/placement/llm',
    ]);
    const pools = memory.kept.pools;
    const placement = memory.kept.placement;
    // The next pass: the base re-read into a new map, the snapshot's nodes rebuilt, equal.
    const next = both(memory, input(new Map(base), { snapshot: rebuilt() }));
    expect(next.kept).toEqual(next.fresh);
    expect(memory.kept.pools).toBe(pools);
    expect(memory.kept.placement).toBe(placement);
  });

  it.each<[string, (base: Map<string, string>) => Partial<DesiredStateInput>]>([
    // A person's commit: a node manifest relabelled by hand, the pools change set must put it back.
    [
      'a file under clusters/prod/ changed',
      (base) => {
        const path = [...base.keys()].find(
          (p) => p.includes('/nodes/') && !base.get(p)!.includes('pool: long-task'),
        )!;
        return {
          base: new Map(base).set(
            path,
            base.get(path)!.replace(/gpuops\.dev\/pool: \S+/, 'gpuops.dev/pool: long-task'),
          ),
        };
      },
    ],
    // The placement merged: the base holds the Deployments, no placement change set is left.
    [
      'the placement merged (the head moved)',
      (base) => {
        const out = new Map(base);
        const plan = planDesiredState(input(base));
        for (const cs of plan.changeSets)
          for (const f of cs.files) if (f.content !== null) out.set(f.path, f.content);
        return { base: out };
      },
    ],
    [
      'a spec changed (a new image)',
      () => ({
        repo: {
          policy,
          errors: [],
          algorithms: [alg('bert', 'registry.example.com/ml/bert:2.0.0'), alg('llm')],
        },
      }),
    ],
    [
      'a benchmark moved an algorithm',
      () => ({
        benchmarks: new Map([
          ['bert', benchmarkOk(6000)],
          ['llm', benchmarkOk(5000)],
        ]),
      }),
    ],
    ['an algorithm left algorithms/', () => ({ repo: { policy, errors: [], algorithms: [alg('bert')] } })],
    [
      'a namespace file deleted by a person',
      (base) => {
        const out = new Map(base);
        out.delete([...base.keys()].find((p) => p.includes('/namespaces/'))!);
        return { base: out };
      },
    ],
    ['a node left the cluster', () => ({ snapshot: { ...snapshot, nodes: snapshot.nodes.slice(1) } })],
  ])('equals the fresh plan on a miss: %s', (_, change) => {
    const memory = createReconcilerMemory();
    const base = poolsMerged();
    const first = both(memory, input(base));
    const next = both(memory, input(base, change(base)));
    expect(next.kept).toEqual(next.fresh);
    // The change shows: the kept plan is not the last one.
    expect(next.kept).not.toEqual(first.kept);
  });
});

/** The pools and placement step inputs of one plain plan of `i`, as the plan built them. */
function stepInputs(i: DesiredStateInput): { pools: PoolChangesInput; placement: PlacementChangesInput } {
  let pools: PoolChangesInput | undefined;
  let placement: PlacementChangesInput | undefined;
  planDesiredState({
    ...i,
    lookups: {
      ...plainLookups,
      poolChanges: (x) => poolChanges((pools = x)),
      placementChanges: (x) => placementChanges((placement = x)),
    },
  });
  return { pools: pools!, placement: placement! };
}

/**
 * Each step kept on its own, against each of its keys in turn: the read model (by identity), the
 * records every pass rebuilds, every other input, and the memo that is no input. A row that
 * changes a key must miss (the answer is the plain step's for the new input, not the kept one);
 * the memo row must hit.
 */
describe('keptPoolChanges and keptPlacementChanges, key by key', () => {
  const base = poolsMerged();
  const first = stepInputs(input(base));
  const path = [...base.keys()].find(
    (p) => p.includes('/nodes/') && !base.get(p)!.includes('pool: long-task'),
  )!;
  const relabelled = new Map(base).set(
    path,
    base.get(path)!.replace(/gpuops\.dev\/pool: \S+/, 'gpuops.dev/pool: long-task'),
  );
  const movedGit = readGitModel('prod', relabelled, LABEL);

  it.each<[string, (i: PoolChangesInput) => PoolChangesInput, boolean]>([
    [
      'equal records rebuilt, a render cache (a memo, no input): a hit',
      (i) => ({ ...i, pools: i.pools.map((a) => ({ ...a })), renderCache: new RenderCache() }),
      true,
    ],
    ['another read model (a person relabelled a node)', (i) => ({ ...i, git: movedGit }), false],
    [
      'one assignment moved',
      (i) => ({
        ...i,
        pools: i.pools.map((a, n) =>
          n === 0 ? { ...a, to: a.to === 'unused' ? 'short-task' : 'unused' } : a,
        ),
      }),
      false,
    ],
    [
      'another algorithm namespace',
      (i) => ({ ...i, algorithms: [...i.algorithms, { ...alg('vit'), namespace: 'team-b' }] }),
      false,
    ],
    ['a node moved by scaling', (i) => ({ ...i, movedByScaling: new Set([i.pools[0]!.node]) }), false],
  ])('pools: %s', (_, change, hit) => {
    const kept = createKeptSteps();
    const step = keptPoolChanges(kept);
    const before = step(first.pools);
    expect(before).toEqual(poolChanges(first.pools));
    const slot = kept.pools;
    const next = change(first.pools);
    const after = step(next);
    expect(after).toEqual(poolChanges(next));
    // The answer carries this pass's assignments, not the kept ones.
    expect(after.pools).toBe(next.pools);
    if (hit) expect(kept.pools).toBe(slot);
    else {
      expect(kept.pools).not.toBe(slot);
      expect(after).not.toEqual(before);
    }
  });

  it.each<[string, (i: PlacementChangesInput) => PlacementChangesInput, boolean]>([
    [
      'equal records rebuilt, another workload renderer (a memo, no input): a hit',
      (i) => ({
        ...i,
        placements: i.placements.map((p) => ({ ...p })),
        workloadFiles: (w) => plainLookups.workloadFiles(w),
      }),
      true,
    ],
    [
      'another read model (the placements merged)',
      (i) => ({ ...i, git: readGitModel('prod', allMerged(), LABEL) }),
      false,
    ],
    [
      'one placement moved',
      (i) => ({
        ...i,
        placements: i.placements.map((p, n) =>
          n === 0 ? { ...p, pool: p.pool === 'long-task' ? 'short-task' : 'long-task' } : p,
        ),
      }),
      false,
    ],
    [
      'a spec changed (a new image)',
      (i) => ({ ...i, algorithms: [alg('bert', 'registry.example.com/ml/bert:2.0.0'), alg('llm')] }),
      false,
    ],
  ])('placement: %s', (_, change, hit) => {
    const kept = createKeptSteps();
    const step = keptPlacementChanges(kept);
    const before = step(first.placement);
    expect(before).toEqual(placementChanges(first.placement));
    const slot = kept.placement;
    const next = change(first.placement);
    const after = step(next);
    expect(after).toEqual(placementChanges(next));
    if (hit) expect(kept.placement).toBe(slot);
    else {
      expect(kept.placement).not.toBe(slot);
      expect(after).not.toEqual(before);
    }
  });

  it('hands out copies: a caller that edits an answer’s files leaves the kept one whole', () => {
    const kept = createKeptSteps();
    const pools = keptPoolChanges(kept);
    const placement = keptPlacementChanges(kept);
    pools(first.pools).files.length = 0;
    placement(first.placement)[0]!.files.length = 0;
    expect(pools(first.pools)).toEqual(poolChanges(first.pools));
    expect(placement(first.placement)).toEqual(placementChanges(first.placement));
  });
});

/** The base branch after every change set of the first plan merged: the Deployments are in Git. */
function allMerged(): Map<string, string> {
  const out = poolsMerged();
  for (const cs of planDesiredState(input(out)).changeSets)
    for (const f of cs.files) if (f.content !== null) out.set(f.path, f.content);
  return out;
}

describe('keptReplicaPod', () => {
  const base = allMerged();
  const path = 'clusters/prod/algorithms/bert/deployment.yaml';
  const bert = ALGORITHMS[0]!;

  it('is the same answer for the same Deployment of the kept model, equal to replicaPod', () => {
    const kept = createKeptSteps();
    const git = keptGitModel(kept, 'prod', base, LABEL, plainLookups.parse);
    const deployment = git.deployments.get('bert')!;
    const first = keptReplicaPod(kept)(bert, deployment);
    expect(first).toEqual(replicaPod(bert, deployment));
    expect(first.request?.gpus).toBe(1);
    expect(
      keptReplicaPod(kept)(
        bert,
        keptGitModel(kept, 'prod', new Map(base), LABEL, plainLookups.parse).deployments.get('bert')!,
      ),
    ).toBe(first);
  });

  it('is read afresh from a changed Deployment (a moved head) and for another namespace', () => {
    const kept = createKeptSteps();
    const pods = keptReplicaPod(kept);
    const before = pods(
      bert,
      keptGitModel(kept, 'prod', base, LABEL, plainLookups.parse).deployments.get('bert')!,
    );
    const text = base.get(path)!;
    const edited = text.replace(/nvidia\.com\/gpu: "?1"?/g, 'nvidia.com/gpu: 2');
    expect(edited).not.toBe(text);
    const moved = keptGitModel(kept, 'prod', new Map(base).set(path, edited), LABEL, plainLookups.parse);
    const after = pods(bert, moved.deployments.get('bert')!);
    expect(after).toEqual(replicaPod(bert, moved.deployments.get('bert')!));
    expect(after.request?.gpus).toBe(2);
    expect(before.request?.gpus).toBe(1);
    const elsewhere = { ...bert, namespace: 'team-b' };
    const other = pods(elsewhere, moved.deployments.get('bert')!);
    expect(other).toEqual(replicaPod(elsewhere, moved.deployments.get('bert')!));
    expect(other).not.toEqual(after);
  });
});

describe('sameRecords', () => {
  const a = { node: 'n1', from: null, to: 'test', gpu: { products: ['A100'] } };
  it.each<[string, object[], object[], boolean]>([
    ['the same records', [a], [a], true],
    ['rebuilt records', [a], [{ ...a, gpu: { products: ['A100'] } }], true],
    ['a value moved', [a], [{ ...a, to: 'unused' }], false],
    ['a nested value moved', [a], [{ ...a, gpu: { products: ['H100'] } }], false],
    ['a key more', [a], [{ ...a, extra: 1 }], false],
    [
      'a key that is undefined against another key',
      [{ x: undefined, y: 1 }],
      [{ y: 1, z: undefined }],
      false,
    ],
    ['null against an object', [{ x: null }], [{ x: {} }], false],
    ['NaN (never equal: a miss, never a stale hit)', [{ x: NaN }], [{ x: NaN }], false],
    ['another length', [a], [a, a], false],
    [
      'a record of another class',
      [{ t: 1 }],
      [Object.assign(Object.create(null) as object, { t: 1 })],
      false,
    ],
  ])('%s → %s', (_, x, y, same) => {
    expect(sameRecords(x, y)).toBe(same);
  });
});
