/**
 * Table rows for the pure gitops helpers that name branches and build change sets: each cleaning
 * rule of a ref component on both sides, the 255-character limit at 255/256, and the order and
 * content of what `buildChangeSet` / `groupChangeSets` return.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { branchName, branchPrefix, MAX_BRANCH_LENGTH } from '../../src/change-sets/branch-name.js';
import { buildChangeSet, groupChangeSets, planFiles } from '../../src/change-sets/change-set.js';
import { parsePushPorcelain, redact } from '../../src/working-copy/git-errors.js';
import { desiredHash, stripHashMarker } from '../../src/change-sets/pr-body.js';
import type { ChangeSet, FileChange } from '../../src/change-sets/types.js';

/** The 8-hex-digit SHA-256 prefix branch names append (computed here independently). */
const h = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 8);

describe('branchName: one ref component made valid for git check-ref-format', () => {
  it.each<[string, string]>([
    ['resnet50-infer', 'resnet50-infer'],
    ['bert_v2.1', 'bert_v2.1'],
    ['a b', `a-b-${h('a b')}`],
    ['a  /\tb', `a-b-${h('a  /\tb')}`],
    ['a..b', `a.b-${h('a..b')}`],
    ['a...b', `a.b-${h('a...b')}`],
    ['.hidden', `hidden-${h('.hidden')}`],
    ['-x', `x-${h('-x')}`],
    ['.-x', `x-${h('.-x')}`],
    ['x.', `x-${h('x.')}`],
    ['x..', `x-${h('x..')}`],
    ['x.lock', `x-lock-${h('x.lock')}`],
    ['X.LOCK', `X-lock-${h('X.LOCK')}`],
    ['x.lockfile', 'x.lockfile'],
    ['', `x-${h('')}`],
    ['...', `x-${h('...')}`],
  ])('subject %j → %j', (subject, component) => {
    expect(branchName('prod', 'scale', subject)).toBe(`gpuops/prod/scale/${component}`);
  });

  it('cleans the cluster the same way; pools ignore the subject', () => {
    expect(branchName('eu west', 'pools', 'anything')).toBe(`gpuops/eu-west-${h('eu west')}/pools`);
    expect(branchName('prod', 'placement', 'bert')).toBe('gpuops/prod/placement/bert');
    expect(branchPrefix('prod')).toBe('gpuops/prod/');
    expect(branchPrefix('eu west')).toBe(`gpuops/eu-west-${h('eu west')}/`);
  });

  it('keeps a name of exactly 255 characters; cuts one of 256 to 255 with a hash of the whole', () => {
    const prefix = 'gpuops/prod/scale/';
    const at = 'a'.repeat(MAX_BRANCH_LENGTH - prefix.length);
    expect(branchName('prod', 'scale', at)).toBe(prefix + at);
    const over = `${at}b`;
    const name = branchName('prod', 'scale', over);
    const suffix = `-${h(prefix + over)}`;
    expect(name).toBe((prefix + over).slice(0, MAX_BRANCH_LENGTH - suffix.length) + suffix);
    expect(name).toHaveLength(MAX_BRANCH_LENGTH);
  });

  it('a cut that ends in a run of . - / drops the whole run before the hash', () => {
    const prefix = 'gpuops/prod/scale/';
    const keep = MAX_BRANCH_LENGTH - 9 - prefix.length; // 9: '-' and 8 hex digits
    const subject = `${'a'.repeat(keep - 2)}.-${'b'.repeat(40)}`;
    expect(branchName('prod', 'scale', subject)).toBe(
      `${prefix}${'a'.repeat(keep - 2)}-${h(prefix + subject)}`,
    );
  });
});

const file = (path: string, content: string | null): FileChange => ({ path, content });

describe('planFiles', () => {
  it('lists create, update and delete sorted by path, and leaves out what is equal or absent', () => {
    const current = new Map([
      ['b.yaml', 'old'],
      ['c.yaml', 'same'],
      ['d.yaml', 'gone'],
    ]);
    // Neither sorted nor reversed, so a comparator that always answers one way cannot pass.
    const files = [
      file('b.yaml', 'new'),
      file('d.yaml', null),
      file('e.yaml', null),
      file('c.yaml', 'same'),
      file('a.yaml', 'x'),
    ];
    expect(planFiles(files, current)).toEqual([
      { path: 'a.yaml', change: 'create' },
      { path: 'b.yaml', change: 'update' },
      { path: 'd.yaml', change: 'delete' },
    ]);
  });
});

describe('buildChangeSet', () => {
  const input = {
    cluster: 'prod',
    kind: 'scale' as const,
    subject: 'bert',
    files: [file('m/hpa.yaml', 'm'), file('z/deploy.yaml', 'z'), file('a/hpa.yaml', 'a')],
  };

  it('sorts its files by path, names the branch and the title, and hashes the files', () => {
    const cs = buildChangeSet(input)!;
    expect(cs.files.map((f) => f.path)).toEqual(['a/hpa.yaml', 'm/hpa.yaml', 'z/deploy.yaml']);
    expect(cs.branch).toBe('gpuops/prod/scale/bert');
    expect(cs.title.startsWith('gpuops(prod):')).toBe(true);
    expect(cs.title).toContain('bert');
    expect(cs.desiredHash).toBe(desiredHash(input.files));
    expect(cs.body).toContain(`gpuops:desired-hash=${cs.desiredHash}`);
    expect(cs.body).toContain('z/deploy.yaml');
    expect('labels' in cs).toBe(false);
    expect(buildChangeSet({ ...input, labels: ['gpuops'] })!.labels).toEqual(['gpuops']);
  });

  it('returns null when nothing differs from current, and a change set when one file does', () => {
    const same = new Map([
      ['z/deploy.yaml', 'z'],
      ['m/hpa.yaml', 'm'],
      ['a/hpa.yaml', 'a'],
    ]);
    expect(buildChangeSet({ ...input, current: same })).toBeNull();
    const one = buildChangeSet({ ...input, current: new Map([...same, ['a/hpa.yaml', 'b']]) })!;
    expect(one.body).toContain('a/hpa.yaml');
    expect(one.body).not.toContain('z/deploy.yaml');
  });
});

describe('groupChangeSets', () => {
  const cs = (kind: ChangeSet['kind'], subject: string, files: FileChange[], labels?: string[]): ChangeSet =>
    buildChangeSet({ cluster: 'prod', kind, subject, files, ...(labels ? { labels } : {}) })!;

  it('orders pools, placement, scale and then subjects by name', () => {
    const out = groupChangeSets([
      cs('scale', 'b', [file('s/b', '1')]),
      cs('scale', 'c', [file('s/c', '1')]),
      cs('scale', 'a', [file('s/a', '1')]),
      cs('placement', 'c', [file('p/c', '1')]),
      cs('pools', 'pools', [file('nodes/x', '1')]),
    ]);
    expect(out.changeSets.map((c) => `${c.kind}/${c.subject}`)).toEqual([
      'pools/pools',
      'placement/c',
      'scale/a',
      'scale/b',
      'scale/c',
    ]);
    expect(out.conflicts).toEqual([]);
  });

  it('merges change sets of one branch: files sorted, labels once, one hash marker for the merged files', () => {
    const one = cs('scale', 'bert', [file('z', '1')], ['gpuops']);
    const two = cs('scale', 'bert', [file('a', '2'), file('z', '1')], ['gpuops', 'scale']);
    const { changeSets, conflicts } = groupChangeSets([one, two]);
    expect(conflicts).toEqual([]);
    expect(changeSets).toHaveLength(1);
    const merged = changeSets[0]!;
    expect(merged.files).toEqual([file('a', '2'), file('z', '1')]);
    expect(merged.labels).toEqual(['gpuops', 'scale']);
    expect(merged.desiredHash).toBe(desiredHash([file('a', '2'), file('z', '1')]));
    expect(merged.body.match(/gpuops:desired-hash=/g)).toHaveLength(1);
    expect(merged.body).toContain(`gpuops:desired-hash=${merged.desiredHash}`);
    expect(merged.body).toContain(`${stripHashMarker(one.body)}\n\n---\n\n${stripHashMarker(two.body)}`);
    const unlabelled = groupChangeSets([
      cs('scale', 'x', [file('a', '1')]),
      cs('scale', 'x', [file('b', '1')]),
    ]);
    expect('labels' in unlabelled.changeSets[0]!).toBe(false);
  });

  it('reports a conflict, with its paths sorted, when one branch wants two contents at a path', () => {
    const { changeSets, conflicts } = groupChangeSets([
      cs('scale', 'bert', [file('z', '1'), file('b', '1')]),
      cs('scale', 'bert', [file('z', '2'), file('b', '2')]),
    ]);
    expect(changeSets).toEqual([]);
    expect(conflicts).toEqual([
      {
        branch: 'gpuops/prod/scale/bert',
        kind: 'scale',
        subject: 'bert',
        paths: ['b', 'z'],
        message: '2 change sets for gpuops/prod/scale/bert want different content at b, z',
      },
    ]);
  });
});

describe('redact: credentials never reach a message', () => {
  it.each<[string, (string | undefined)[], string]>([
    ['token s3cr3t here', ['', undefined, 's3cr3t'], 'token *** here'],
    ['Authorization:Bearer abc', [], 'Authorization:Bearer ***'],
    ['Authorization: Bearer abc', [], 'Authorization: Bearer ***'],
    ['authorization: token   abc123 rest', [], 'authorization: token *** rest'],
    ['AUTHORIZATION: basic dXNlcjpwdw==', [], 'AUTHORIZATION: basic ***'],
    ['fetch https://bot:pw@example.com/r.git', [], 'fetch https://***@example.com/r.git'],
  ])('%j → %j', (text, secrets, out) => {
    expect(redact(text, secrets)).toBe(out);
  });
});

describe('parsePushPorcelain', () => {
  it('reads one result per ref line and ignores lines of other shapes', () => {
    const stdout = [
      'To /srv/git/gitops.git',
      '*\trefs/heads/a:refs/heads/a\t[new branch]',
      '!\trefs/heads/b:refs/heads/b\t[rejected] (stale info)',
      'xx!\trefs/heads/c:refs/heads/c\t[rejected] (fetch first)',
      'Done',
    ].join('\n');
    expect(parsePushPorcelain(stdout).map((r) => [r.ref, r.ok, r.summary])).toEqual([
      ['refs/heads/a', true, '[new branch]'],
      ['refs/heads/b', false, '[rejected] (stale info)'],
    ]);
  });
});
