/**
 * A spec that fails validation gets no pull request and its errors are reported (log, and a
 * comment on the PR that changed it when one exists); the valid specs still get theirs. A placed
 * algorithm whose spec breaks keeps its running Deployment: no PR deletes it.
 * Provider `github` against the fake GitHub, so comments are real requests.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { FakeGitHub } from '../support/github-server.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

/** `resources.gpus: 0` and no image: two errors in one document. */
const BROKEN = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Algorithm',
  'metadata:',
  '  name: broken',
  'spec:',
  '  resources: {gpus: 0}',
  '',
].join('\n');
/** What a person's edit does to `shaky`: a string where a whole number of GPUs belongs. */
const SHAKY_BROKEN = algorithmFile('shaky', { pool: 'short-task' }).replace('gpus: 1', 'gpus: two');

const FILES = {
  'README.md': '# gitops\n',
  'algorithms/good.yaml': algorithmFile('good', { pool: 'short-task' }),
  'algorithms/shaky.yaml': algorithmFile('shaky', { pool: 'short-task' }),
  'algorithms/broken.yaml': BROKEN,
};
const NODES = [gpuNode('gpu-a', 1), gpuNode('gpu-s', 4, 'short-task')];
const PULLS = '/repos/acme/gitops/pulls';

let gh: FakeGitHub;
let h: Harness;
beforeAll(async () => {
  gh = await FakeGitHub.start();
  h = await startHarness({ files: FILES, nodes: NODES, provider: 'github', github: gh });
});
afterAll(async () => {
  await h.close();
  await gh.close();
});
afterEach(() => gh.verify());

const warnings = (algorithm: string) =>
  h.logs.filter(
    (l) => l.level === 40 && l.algorithm === algorithm && l.msg === 'Spec does not validate; no pull request',
  );
const pull = (head: string) => gh.pulls.find((p) => p.head === head);

describe('a spec that fails validation', () => {
  let first: PassResult;

  it('gets no PR; the valid specs get theirs', async () => {
    first = await h.pass();
    expect(first.writeBack.map((r) => [r.branch, r.action])).toEqual([
      ['gpuops/prod/pools', 'created'],
      ['gpuops/prod/placement/good', 'created'],
      ['gpuops/prod/placement/shaky', 'created'],
    ]);
    expect(gh.pulls.map((p) => p.head)).toEqual([
      'gpuops/prod/pools',
      'gpuops/prod/placement/good',
      'gpuops/prod/placement/shaky',
    ]);
    expect(h.branches()).not.toContain('gpuops/prod/placement/broken');
    expect(first.plan.placements.map((p) => p.algorithm)).toEqual(['good', 'shaky']);
  });

  it('is reported with file, line and field, in the plan and the log', () => {
    const errors = first.plan.errors.filter((e) => e.file === 'algorithms/broken.yaml');
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors.map((e) => e.field)).toEqual(expect.arrayContaining(['spec.resources.gpus', 'spec.image']));
    const gpus = errors.find((e) => e.field === 'spec.resources.gpus')!;
    expect(gpus.line).toBe(6);
    expect(first.errors).toBeGreaterThanOrEqual(2);
    expect(warnings('broken')).toHaveLength(1);
    // No PR of broken exists to comment on.
    expect(gh.writes().filter((w) => w.path.includes('/comments'))).toEqual([]);
  });

  it('a person breaks shaky: its PR is left as it is and gets one comment with the errors; good is untouched', async () => {
    const shakyHead = h.ref('gpuops/prod/placement/shaky');
    const shakyBody = pull('gpuops/prod/placement/shaky')!.body;
    h.push({ 'algorithms/shaky.yaml': SHAKY_BROKEN }, 'tune shaky');
    const before = gh.requests.length;
    const second = await h.pass();

    expect(h.ref('gpuops/prod/placement/shaky')).toBe(shakyHead);
    expect(pull('gpuops/prod/placement/shaky')).toMatchObject({ state: 'open', body: shakyBody });
    expect(second.writeBack.map((r) => r.subject)).not.toContain('shaky');
    const number = pull('gpuops/prod/placement/shaky')!.number;
    const comments = gh.comments.get(number) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('algorithms/shaky.yaml:');
    expect(comments[0]!.body).toContain('spec.resources.gpus');
    expect(warnings('shaky')).toHaveLength(1);

    // The valid spec still gets its PR, unchanged; the only write of the pass is that comment.
    expect(second.writeBack.find((r) => r.subject === 'good')).toMatchObject({ action: 'unchanged' });
    expect(gh.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([
      expect.objectContaining({ method: 'POST', path: `/repos/acme/gitops/issues/${number}/comments` }),
    ]);
  });

  it('the same errors are not commented twice', async () => {
    const before = gh.requests.length;
    await h.pass();
    expect(gh.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(gh.comments.get(pull('gpuops/prod/placement/shaky')!.number)).toHaveLength(1);
  });

  it('a placed algorithm whose spec breaks keeps its Deployment: no PR deletes it', async () => {
    h.merge('gpuops/prod/pools');
    await h.pass(); // rebuilds good's PR on the new main (both touch the root kustomization)
    h.merge('gpuops/prod/placement/good');
    gh.pulls.find((p) => p.head === 'gpuops/prod/placement/good')!.merged = true;
    gh.pulls.find((p) => p.head === 'gpuops/prod/placement/good')!.state = 'closed';
    gh.pulls.find((p) => p.head === 'gpuops/prod/pools')!.merged = true;
    gh.pulls.find((p) => p.head === 'gpuops/prod/pools')!.state = 'closed';
    await h.sync();
    expect(h.sim.store.get('deployments', 'algorithms', 'good')).toBeDefined();

    h.push({
      'algorithms/good.yaml': algorithmFile('good', { pool: 'short-task' }).replace('gpus: 1', 'gpus: -1'),
    });
    const pulls = gh.pulls.length;
    const r = await h.pass();
    expect(r.changeSets.filter((c) => c.subject === 'good')).toEqual([]);
    expect(r.plan.files.filter((f) => f.change === 'delete')).toEqual([]);
    expect(gh.pulls.length).toBe(pulls);
    expect(h.file('main', 'clusters/prod/algorithms/good/deployment.yaml')).not.toBeNull();
    expect(gh.requests.filter((q) => q.method === 'POST' && q.path === PULLS)).toHaveLength(3);
  });

  it('a YAML syntax error (no name to read) keeps every workload in Git as well', async () => {
    // The parser reads `metadata.name` here as a mapping, not a name.
    h.push({
      'algorithms/good.yaml':
        'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata:\n  name: good\n   bad: [\n',
    });
    const r = await h.pass();
    expect(r.plan.errors.some((e) => e.file === 'algorithms/good.yaml')).toBe(true);
    expect(r.plan.files.filter((f) => f.change === 'delete')).toEqual([]);
    expect(r.changeSets.filter((c) => c.subject === 'good')).toEqual([]);
    expect(gh.requests.filter((q) => q.method === 'POST' && q.path === PULLS)).toHaveLength(3);
  });
});
