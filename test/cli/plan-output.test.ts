/**
 * Issue 16 item 6: `gpuops plan --output json` carries what the text shows (GPU product,
 * free/allocatable GPUs per node, the nodes left out of every pool with their reasons, why a
 * section is empty), and the text prints every section, saying why an empty one is empty.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';
import { emptySections, type PlanReport } from '../../src/cli/plan-build.js';
import type { PlanOutput } from '../../src/plan/desired-state.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');
const DUMPS = ['--nodes', path.join(FIXTURE, 'nodes.json'), '--pods', path.join(FIXTURE, 'pods.json')];
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-plan-out-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = runMain;

function repoWith(name: string, files: Record<string, string>): string {
  const repo = path.join(work, name);
  mkdirSync(path.join(repo, 'algorithms'), { recursive: true });
  for (const [p, text] of Object.entries(files)) writeFileSync(path.join(repo, p), text);
  return repo;
}

/** Text and JSON of one plan, each exiting with `code` (0, or 3 with `--fail-on-refused` and a spec refused). */
async function both(code: 0 | 3, ...args: string[]): Promise<{ text: string; json: PlanReport }> {
  const text = await run('plan', ...args);
  const json = await run('plan', ...args, '--output', 'json');
  expect([text.code, json.code, text.err, json.err]).toEqual([code, code, '', '']);
  return { text: text.out, json: JSON.parse(json.out) as PlanReport };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('gpuops plan: the JSON carries what the text shows', { timeout: 60_000 }, () => {
  it('every node with its GPU product and free/allocatable GPUs, and the left-out nodes with reasons', async () => {
    const { text, json } = await both(0, '--repo', path.join(ROOT, 'examples/gitops-repo'), ...DUMPS);
    const byNode = new Map(json.pools.map((p) => [p.node, p]));
    expect(byNode.get('gpu-a100-03')).toMatchObject({
      gpuProduct: 'NVIDIA-A100-SXM4-80GB',
      gpus: { free: 4, allocatable: 8 },
      to: null,
      reason: 'ForeignWorkload',
    });
    expect(byNode.get('gpu-h100-02')).toMatchObject({
      gpus: { free: 0, allocatable: 8 },
      reason: 'Cordoned',
    });
    expect(byNode.get('gpu-a100-04')).toMatchObject({ gpus: null, reason: 'MIGOnly' });
    expect(byNode.get('ip-10-0-1-11.ec2.internal')).toMatchObject({ gpuProduct: null, gpus: null });
    expect(json.leftOut.map((n) => n.reason)).toEqual(
      json.pools.filter((p) => p.to === null).map((p) => p.reason),
    );
    expect(json.leftOut.map((n) => n.node)).toContain('gpu-t4-04');
    // Each JSON node is the text's row, column by column.
    for (const p of json.pools) {
      const gpus = p.gpus ? `${p.gpus.free}/${p.gpus.allocatable}` : '-';
      const row = `^${escape(p.node)}\\s+${escape(p.gpuProduct ?? '-')}\\s+${escape(gpus)}\\s+.*${p.reason}: `;
      expect(text).toMatch(new RegExp(row, 'm'));
    }
    expect(text).toContain(`${json.pools.length} nodes, ${json.leftOut.length} left out of every pool`);
    // Both algorithms wait for a benchmark: scaling is empty, and both say why in the same words.
    expect(json.scaling).toEqual([]);
    expect(json.empty.scaling).toBe(
      'no algorithm is placed yet, 2 waiting for a benchmark; scaling starts once its Deployment is in Git',
    );
    expect(text).toContain(`scaling: none (${json.empty.scaling})`);
    expect(json.empty.errors).toBeUndefined();
    expect(text).toMatch(/^errors \(2\):$/m);
  });

  it('a repo with no spec prints every section, each saying why it is empty', async () => {
    const { text, json } = await both(0, '--repo', repoWith('empty', {}), ...DUMPS);
    expect(json.empty).toEqual({
      placements: 'no Algorithm spec in algorithms/',
      scaling: 'no algorithm to scale',
      errors: 'every spec is valid',
    });
    expect(text).toContain('placements: none (no Algorithm spec in algorithms/)');
    expect(text).toContain('scaling: none (no algorithm to scale)');
    expect(text).toContain('errors: none (every spec is valid)');
    expect(text).toMatch(/^files:\n {2}create clusters\/default\/nodes\/gpu-a100-01\.yaml$/m);
  });

  it('a repo whose only spec is invalid, on a cluster with no nodes', async () => {
    const empty = path.join(work, 'no-nodes.json');
    writeFileSync(empty, '{"kind": "List", "items": []}');
    const repo = repoWith('invalid', {
      'algorithms/bad.yaml':
        'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: bad}\nspec: {}\n',
    });
    const { text, json } = await both(0, '--repo', repo, '--nodes', empty, '--pods', empty);
    expect(json.pools).toEqual([]);
    expect(text).toContain('pools: none (the snapshot has no nodes)');
    expect(text).toContain(
      'placements: none (no valid Algorithm spec; 2 errors in algorithms/, listed under errors)',
    );
    expect(json.errors).toHaveLength(2);
  });
});

const GOOD =
  'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: good}\nspec: {image: registry.example.com/ml/good:1.0, resources: {gpus: 1}}\n';
const BAD = GOOD.replace('good}', 'bad}').replace('gpus: 1', 'gpu: 1');
const POLICY = (window: string) =>
  `apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: p}\nspec: {scaling: {windowSeconds: ${window}}}\n`;

describe(
  'gpuops plan: errors listed with exit 0 (the command-line contract); exit 3 with --fail-on-refused',
  { timeout: 60_000 },
  () => {
    it.each([
      ['an Algorithm refused beside a valid one', { 'algorithms/bad.yaml': BAD }, true],
      ['the refused Algorithm fixed', { 'algorithms/bad.yaml': BAD.replace('gpu: 1', 'gpus: 1') }, false],
      ['a Policy file refused', { 'policies/p.yaml': POLICY('"soon"') }, true],
      ['the Policy file fixed', { 'policies/p.yaml': POLICY('60') }, false],
    ] as const)('%s', async (name, files, refused) => {
      mkdirSync(path.join(work, name, 'policies'), { recursive: true });
      const repo = repoWith(name, { 'algorithms/good.yaml': GOOD, ...files });
      const { text, json } = await both(0, '--repo', repo, ...DUMPS);
      const failing = await both(refused ? 3 : 0, '--repo', repo, ...DUMPS, '--fail-on-refused');
      expect(failing.json).toEqual(json);
      expect(json.placements.map((p) => p.algorithm)).toContain('good');
      expect(json.errors.length > 0).toBe(refused);
      expect(text).toContain(
        refused ? `errors (${json.errors.length}):` : 'errors: none (every spec is valid)',
      );
    });
  },
);

describe('emptySections', () => {
  const plan = (over: Partial<PlanOutput>): PlanOutput => ({
    cluster: 'prod',
    errors: [],
    pools: [],
    placements: [],
    scaling: [],
    files: [],
    ...over,
  });
  const placed = {
    algorithm: 'a',
    pool: 'short-task',
    runTimeSeconds: 3,
    reason: 'BelowThreshold',
    message: '',
  };
  const node = { node: 'n', from: null, to: 'unused', reason: 'Unused', message: '' };
  const file = { path: 'clusters/prod/nodes/n.yaml', change: 'create' };

  it.each([
    [
      'NothingChangesWhenGitHoldsTheDesiredState',
      { pools: [node] },
      'files',
      'no change: Git already holds the desired state',
    ],
    [
      'PlacedButNoDeploymentYet',
      { pools: [node], placements: [placed], files: [file] },
      'scaling',
      'no algorithm has a Deployment in clusters/prod/algorithms/ yet',
    ],
    [
      'OneSpecErrorIsSingular',
      { errors: [{ file: 'algorithms/x.yaml', line: 1, column: 1, field: '', message: '' }] },
      'placements',
      'no valid Algorithm spec; 1 error in algorithms/, listed under errors',
    ],
    [
      'APolicyErrorIsNotASpecError',
      { errors: [{ file: 'policies/x.yaml', line: 1, column: 1, field: '', message: '' }] },
      'placements',
      'no Algorithm spec in algorithms/',
    ],
  ] as const)('%s', (_name, over, section, why) => {
    expect(emptySections(plan(over as unknown as Partial<PlanOutput>))[section]).toBe(why);
  });

  it('a full plan has no empty section', () => {
    const scaling = [
      {
        algorithm: 'a',
        action: 'hold',
        replicas: { from: 1, to: 1 },
        utilization: 50,
        nodes: [],
        reason: 'WithinBand',
        message: '',
      },
    ];
    const errors = [{ file: 'algorithms/x.yaml', line: 1, column: 1, field: '', message: '' }];
    expect(
      emptySections(
        plan({ pools: [node], placements: [placed], scaling, files: [file], errors } as Partial<PlanOutput>),
      ),
    ).toEqual({});
  });
});
