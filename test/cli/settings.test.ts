import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError, resolveSettings } from '../../src/cli/settings.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const none = path.join(dir, 'absent.yaml');
function config(text: string): string {
  const file = path.join(dir, `gpuops-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return file;
}

describe('resolveSettings', () => {
  it('takes the flag over the environment over gpuops.yaml over the default', () => {
    const file = config('cluster: from-file\nbranch: file-branch\nrepoUrl: file:///r\n');
    const s = resolveSettings(
      { cluster: 'from-flag' },
      { GPUOPS_CLUSTER: 'from-env', GPUOPS_BRANCH: 'env-branch' },
      file,
    );
    expect([s.cluster, s.branch, s.repoUrl, s.database, s.provider]).toEqual([
      'from-flag',
      'env-branch',
      'file:///r',
      'sqlite:.gpuops/state.db',
      'git',
    ]);
  });

  it('reads GITHUB_TOKEN from the environment only, and --dcgm-url as a list', () => {
    const s = resolveSettings(
      { githubToken: 'flag-token' },
      { GITHUB_TOKEN: 'env-token', GPUOPS_DCGM_URL: 'http://a:9400/metrics, http://b:9400/metrics' },
      none,
    );
    expect(s.githubToken).toBe('env-token');
    expect(s.dcgmUrl).toEqual(['http://a:9400/metrics', 'http://b:9400/metrics']);
  });

  it('counts the dcgm-exporter jobs of the GPU Operator and the Helm chart unless told', () => {
    expect(resolveSettings({}, {}, none).dcgmJob).toBe('dcgm-exporter|nvidia-dcgm-exporter');
    expect(resolveSettings({}, { GPUOPS_DCGM_JOB: 'gpu-metrics' }, none).dcgmJob).toBe('gpu-metrics');
  });

  it("counts the AMD GPU operator's metrics-exporter jobs unless told", () => {
    expect(resolveSettings({}, {}, none).amdMetricsJob).toBe('.*metrics-exporter');
    expect(resolveSettings({}, { GPUOPS_AMD_METRICS_JOB: 'amd-gpu' }, none).amdMetricsJob).toBe('amd-gpu');
  });

  it.each([
    [
      'a cluster name that leaves clusters/',
      { cluster: '../../etc' },
      none,
      /--cluster: "\.\.\/\.\.\/etc" must be a DNS-1123 label/,
    ],
    ['an upper-case cluster name', { cluster: 'Prod' }, none, /--cluster/],
    [
      'an unknown provider',
      { provider: 'bitbucket' },
      none,
      /--provider: must be one of git, github, gitlab, gitea, forgejo, got "bitbucket"/,
    ],
    [
      'a GitLab token file that cannot be read',
      { provider: 'gitlab', gitlabTokenFile: path.join(dir, 'missing-token') },
      none,
      /--gitlab-token-file: cannot read .*missing-token: ENOENT/,
    ],
    ['an unknown key in gpuops.yaml', {}, 'databse: sqlite:x.db\n', /unknown setting "databse"/],
    ['gpuops.yaml that is not YAML', {}, 'cluster: [a\n', /gpuops-.*\.yaml: /],
    ['gpuops.yaml that is a list', {}, '- a\n', /must be a mapping/],
    ['a dcgm-exporter job with a quote', { dcgmJob: 'dcgm"} or up{' }, none, /--dcgm-job: must be a regular/],
    ['a dcgm-exporter job that is no regex', { dcgmJob: 'dcgm-(exporter' }, none, /--dcgm-job/],
    [
      'an AMD exporter job with a quote',
      { amdMetricsJob: 'x"}' },
      none,
      /--amd-metrics-job: must be a regular/,
    ],
    ['an AMD exporter job that is empty', { amdMetricsJob: ' ' }, none, /--amd-metrics-job/],
  ])('rejects %s as a usage error naming it', (_name, flags, file, message) => {
    const f = file === none ? none : config(file);
    expect(() => resolveSettings(flags, {}, f)).toThrow(UsageError);
    expect(() => resolveSettings(flags, {}, f)).toThrow(message);
  });

  it.each([
    ['gitlab', 'gitlab'],
    ['gitea', 'gitea'],
    ['forgejo', 'gitea'],
  ])('takes --provider %s as %s', (given, provider) => {
    expect(resolveSettings({ provider: given }, {}, none).provider).toBe(provider);
  });

  it('reads a host token from its environment variable, else from its file (first line), never from a flag', () => {
    const tokenFile = path.join(dir, 'gitlab-token');
    writeFileSync(tokenFile, '  glpat-from-file  \nsecond line\n');
    const fromFile = resolveSettings(
      { provider: 'gitlab', gitlabTokenFile: tokenFile, gitlabToken: 'flag' },
      {},
      none,
    );
    expect(fromFile.gitlabToken).toBe('glpat-from-file');
    const fromEnv = resolveSettings(
      { provider: 'gitlab', gitlabTokenFile: tokenFile },
      { GITLAB_TOKEN: 'glpat-env' },
      none,
    );
    expect(fromEnv.gitlabToken).toBe('glpat-env');
    const gitea = resolveSettings(
      {},
      { GITEA_TOKEN: 'gitea-env', GPUOPS_GITEA_URL: 'https://git.example.com' },
      none,
    );
    expect([gitea.giteaToken, gitea.giteaUrl, gitea.gitlabToken]).toEqual([
      'gitea-env',
      'https://git.example.com',
      undefined,
    ]);
    const empty = path.join(dir, 'empty-token');
    writeFileSync(empty, '\n');
    expect(() => resolveSettings({ giteaTokenFile: empty }, {}, none)).toThrow(
      /--gitea-token-file: .*holds no token/,
    );
  });
});
