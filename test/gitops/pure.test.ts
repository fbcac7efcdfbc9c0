import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_BRANCH_LENGTH, branchName, branchPrefix } from '../../src/change-sets/branch-name.js';
import { buildChangeSet, groupChangeSets, planFiles } from '../../src/change-sets/change-set.js';
import { GIT_ERROR_RULES, classifyGitError, redact } from '../../src/working-copy/git-errors.js';
import { parseGitHubRepo } from '../../src/git-hosts/github-host.js';
import {
  desiredHash,
  parseDesiredHash,
  renderPrBody,
  withHashMarker,
} from '../../src/change-sets/pr-body.js';
import type { ChangeSet } from '../../src/change-sets/types.js';

function validRef(name: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', `refs/heads/${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('branchName', () => {
  it.each([
    [
      'placement of an algorithm',
      'prod',
      'placement',
      'resnet50-infer',
      'gpuops/prod/placement/resnet50-infer',
    ],
    ['scaling of an algorithm', 'prod', 'scale', 'resnet50-infer', 'gpuops/prod/scale/resnet50-infer'],
    ['node pools ignore the subject', 'prod', 'pools', 'anything', 'gpuops/prod/pools'],
  ] as const)('%s', (_name, cluster, kind, subject, want) => {
    expect(branchName(cluster, kind, subject)).toBe(want);
  });

  it('makes hostile names valid refs and keeps different inputs distinct', () => {
    const names = ['a b', 'a_b', 'a..b', '.hidden', 'x.lock', 'ü~^:?*[', '-lead', 'trail.', 'a/b'].map((s) =>
      branchName('prod', 'placement', s),
    );
    for (const n of names) expect(validRef(n), n).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });

  it('cuts names longer than 255 characters and ends them with a hash', () => {
    const a = branchName('prod', 'scale', 'x'.repeat(400));
    const b = branchName('prod', 'scale', `${'x'.repeat(399)}y`);
    expect(a.length).toBeLessThanOrEqual(MAX_BRANCH_LENGTH);
    expect(a).not.toBe(b);
    expect(validRef(a)).toBe(true);
    expect(a).toBe(branchName('prod', 'scale', 'x'.repeat(400)));
  });

  it('gives the prefix of every branch of a cluster', () => {
    expect(branchPrefix('prod')).toBe('gpuops/prod/');
  });
});

describe('desired hash and marker', () => {
  it('does not depend on file order, and changes with content and with deletion', () => {
    const a = { path: 'a.yaml', content: 'a\n' };
    const b = { path: 'b.yaml', content: 'b\n' };
    expect(desiredHash([a, b])).toBe(desiredHash([b, a]));
    expect(desiredHash([a, b])).not.toBe(desiredHash([a, { ...b, content: 'c\n' }]));
    expect(desiredHash([a, { path: 'b.yaml', content: null }])).not.toBe(
      desiredHash([a, { path: 'b.yaml', content: '' }]),
    );
  });

  it('keeps exactly one marker and reads it back', () => {
    const body = withHashMarker(withHashMarker('text', 'abcdef0123456789'), 'fedcba9876543210');
    expect(body.match(/gpuops:desired-hash/g)).toHaveLength(1);
    expect(parseDesiredHash(body)).toBe('fedcba9876543210');
    expect(parseDesiredHash('no marker')).toBeNull();
  });
});

describe('renderPrBody', () => {
  it('renders scaling and pool evidence, escaping table cells, byte-stable', () => {
    const input = {
      cluster: 'prod',
      kind: 'scale' as const,
      subject: 'bert',
      files: [{ path: 'clusters/prod/algorithms/bert/deployment.yaml', change: 'update' as const }],
      desiredHash: 'a'.repeat(64),
      scaling: [
        {
          decision: {
            algorithm: 'bert',
            action: 'relabel' as const,
            replicas: { from: 2, to: 3 },
            utilization: 91.25,
            nodes: ['gpu-t4-02'],
            reason: 'RelabelUnusedNode' as const,
            message: 'above max | no free GPU',
          },
          pods: [
            {
              namespace: 'algorithms',
              pod: 'bert-b',
              utilization: 95,
              at: '2025-01-01T00:00:00Z',
              gpus: ['GPU-1'],
            },
            {
              namespace: 'algorithms',
              pod: 'bert-a',
              utilization: 87.5,
              at: '2025-01-01T00:00:00Z',
              gpus: ['GPU-2'],
            },
          ],
          min: 30,
          max: 80,
          minReplicas: 1,
          maxReplicas: 8,
        },
      ],
      pools: [
        {
          node: 'gpu-t4-02',
          from: 'unused' as const,
          to: 'short-task' as const,
          reason: 'MovedForScaleUp' as const,
          message: 'for bert',
        },
        {
          node: 'gpu-a100-01',
          from: 'test' as const,
          to: 'test' as const,
          reason: 'KeepPool' as const,
          message: 'kept',
        },
      ],
    };
    const body = renderPrBody(input);
    // Byte-stable: the order the pods were read in does not change the body.
    const reordered = {
      ...input,
      scaling: [{ ...input.scaling[0]!, pods: [...input.scaling[0]!.pods].reverse() }],
    };
    expect(renderPrBody(reordered)).toBe(body);
    expect(body).toContain(
      '## gpuops(prod): move gpu-t4-02 into short-task and scale bert from 2 to 3 replicas',
    );
    expect(body).toContain('| 91.3 | 30.0 | 80.0 | 2 → 3 (limits 1..8) | relabel | RelabelUnusedNode |');
    expect(body).toContain('above max | no free GPU');
    expect(body.indexOf('| algorithms | bert-a | 87.5 | 1 |')).toBeLessThan(
      body.indexOf('| algorithms | bert-b | 95.0 | 1 |'),
    );
    expect(body).toContain('| gpu-t4-02 | unused | short-task | MovedForScaleUp | for bert |');
    expect(body).not.toContain('gpu-a100-01');
    expect(parseDesiredHash(body)).toBe('a'.repeat(64));
  });
});

describe('classifyGitError', () => {
  it.each([
    ['push behind the remote', ' ! [rejected]        HEAD -> main (fetch first)', 'non-fast-forward'],
    ['lease no longer holds', ' ! [rejected]        HEAD -> x (stale info)', 'non-fast-forward'],
    ['unreachable host', "fatal: unable to access 'https://h/': Could not resolve host: h", 'transient'],
    [
      'server error',
      'error: RPC failed; HTTP 502 curl 22 The requested URL returned error: 502',
      'transient',
    ],
    [
      'bad token',
      "remote: Invalid username or password.\nfatal: Authentication failed for 'https://h/'",
      'auth',
    ],
    [
      'no write access',
      "fatal: unable to access 'https://h/': The requested URL returned error: 403",
      'auth',
    ],
    ['protected branch', ' ! [remote rejected] main -> main (protected branch hook declined)', 'refused'],
    ['missing repository', "fatal: '/x.git' does not appear to be a git repository", 'refused'],
    // One row per rule, with a message only that rule matches (git, GitHub and curl wording).
    [
      'pre-receive hook',
      ' ! [remote rejected] main -> main (pre-receive hook declined) timed out',
      'refused',
    ],
    ['protected branch alone', 'GH006: Protected branch update failed; timed out', 'refused'],
    ['update hook', ' ! [remote rejected] x -> x (hook declined) timed out', 'refused'],
    [
      'behind: non-fast-forward',
      'Updates were rejected because the tip is behind (non-fast-forward)',
      'non-fast-forward',
    ],
    [
      'remote has work',
      'Updates were rejected because the remote contains work (fetch first)',
      'non-fast-forward',
    ],
    ['lease: stale info', 'x -> x (stale info)', 'non-fast-forward'],
    [
      'ref lock race',
      "error: cannot lock ref 'refs/heads/x': is at 1a2b but expected 3c4d",
      'non-fast-forward',
    ],
    ['ref update race', ' ! [remote rejected] x -> x (failed to update ref)', 'non-fast-forward'],
    ['new branch race', ' ! [remote rejected] x -> x (reference already exists)', 'non-fast-forward'],
    ['other rejection', ' ! [rejected]        x -> x (would clobber existing tag)', 'non-fast-forward'],
    ['wrong credentials', "fatal: Authentication failed for 'https://h/'", 'auth'],
    ['no username', "fatal: could not read Username for 'https://h': No such device", 'auth'],
    ['no password', "fatal: could not read Password for 'https://u@h': No such device", 'auth'],
    ['ssh key refused', 'git@github.com: Permission denied (publickey).', 'auth'],
    ['GitHub https', 'remote: Invalid username or password.', 'auth'],
    ['HTTP 401', 'The requested URL returned error: 401', 'auth'],
    ['no prompt', 'fatal: terminal prompts disabled', 'auth'],
    ['read-only token', 'remote: Write access to repository not granted.', 'auth'],
    [
      'DNS',
      'ssh: Could not resolve hostname h: Name or service not known; could not resolve host',
      'transient',
    ],
    ['connection refused', 'ssh: connect to host h port 22: Connection refused', 'transient'],
    ['connection reset', 'error: Connection reset by peer', 'transient'],
    ['operation timed out', 'Operation timed out after 300000 milliseconds', 'transient'],
    ['early EOF', 'fatal: early EOF', 'transient'],
    ['hung up', 'fatal: the remote end hung up unexpectedly', 'transient'],
    ['HTTP 429', 'The requested URL returned error: 429', 'transient'],
    ['HTTP 503', 'The requested URL returned error: 503', 'transient'],
    ['RPC failed', 'error: RPC failed; curl 56 GnuTLS recv error (-9)', 'transient'],
    ['temporary DNS failure', 'Temporary failure in name resolution', 'transient'],
    ['cannot connect', "Failed to connect to h port 443 after 2 ms: Couldn't connect to server", 'transient'],
    ['https unreachable', "fatal: unable to access 'https://h/': SSL certificate problem", 'transient'],
    ['concurrent git', "fatal: Unable to create '/r/.git/index.lock': File exists.", 'transient'],
    ['HTTP 404 is no rule: refused', 'The requested URL returned error: 404', 'refused'],
  ])('%s', (_name, text, kind) => {
    expect(classifyGitError(text)).toBe(kind);
  });

  it('every rule says why it classifies so', () => {
    expect(GIT_ERROR_RULES.filter((r) => r.why.trim() === '')).toEqual([]);
  });

  it('redacts tokens, their base64 header forms and URL userinfo', () => {
    const token = 'ghs_abcdef123';
    const b64 = Buffer.from(`x-access-token:${token}`).toString('base64');
    const out = redact(`https://u:${token}@github.com/a/b AUTHORIZATION: basic ${b64} ${token}`, [token]);
    expect(out).not.toContain(token);
    expect(out).not.toContain(b64);
    expect(out).toContain('https://***@github.com/a/b');
  });
});

describe('change sets', () => {
  const cs = (subject: string, files: ChangeSet['files'], kind: ChangeSet['kind'] = 'scale') =>
    buildChangeSet({ cluster: 'prod', kind, subject, files })!;

  it('plans only the files that differ from the base branch', () => {
    const current = new Map([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(
      planFiles(
        [
          { path: 'a', content: '1' },
          { path: 'b', content: '3' },
          { path: 'c', content: 'x' },
          { path: 'a2', content: null },
        ],
        current,
      ),
    ).toEqual([
      { path: 'b', change: 'update' },
      { path: 'c', change: 'create' },
    ]);
    expect(
      buildChangeSet({
        cluster: 'prod',
        kind: 'scale',
        subject: 's',
        files: [{ path: 'a', content: '1' }],
        current,
      }),
    ).toBeNull();
  });

  it('merges change sets of one subject into one PR, orders pools first, and reports conflicts', () => {
    const { changeSets, conflicts } = groupChangeSets([
      cs('zeta', [{ path: 'z1', content: '1' }]),
      cs('alpha', [{ path: 'a1', content: '1' }]),
      cs('zeta', [{ path: 'z2', content: '2' }]),
      cs('pools', [{ path: 'n', content: 'n' }], 'pools'),
      cs('clash', [{ path: 'c', content: '1' }]),
      cs('clash', [{ path: 'c', content: '2' }]),
    ]);
    expect(changeSets.map((c) => c.branch)).toEqual([
      'gpuops/prod/pools',
      'gpuops/prod/scale/alpha',
      'gpuops/prod/scale/zeta',
    ]);
    const zeta = changeSets[2]!;
    expect(zeta.files.map((f) => f.path)).toEqual(['z1', 'z2']);
    expect(zeta.desiredHash).toBe(desiredHash(zeta.files));
    expect(parseDesiredHash(zeta.body)).toBe(zeta.desiredHash);
    expect(conflicts).toMatchObject([{ branch: 'gpuops/prod/scale/clash', paths: ['c'] }]);
  });

  it('finds OWNER/NAME from the flag or the remote URL', () => {
    expect(parseGitHubRepo('acme/gitops', undefined)).toEqual({ owner: 'acme', repo: 'gitops' });
    expect(parseGitHubRepo(undefined, 'https://github.com/acme/gitops.git')).toEqual({
      owner: 'acme',
      repo: 'gitops',
    });
    expect(parseGitHubRepo(undefined, 'git@github.com:acme/gitops.git')).toEqual({
      owner: 'acme',
      repo: 'gitops',
    });
    expect(parseGitHubRepo(undefined, '/srv/git/repo')).toBeNull();
  });
});
