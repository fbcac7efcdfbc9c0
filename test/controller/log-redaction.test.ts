import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { settingsSecrets } from '../../src/config/secrets.js';
import { resolveSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/controller/log.js';
import { loggableSettings } from '../../src/controller/run-controller.js';

/** A pino logger as `gpuops run` builds it, writing into `lines`. */
function logger(settings: ReturnType<typeof resolveSettings>) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, log: createLogger('info', sink, { secrets: settingsSecrets(settings) }) };
}

describe('no URL password reaches a log line (issue 29 item 3)', () => {
  // Each row: the setting, its URL, the password that must not appear.
  it.each([
    ['database', 'postgres://gpuops@db:5432/gpuops?password=QueryPw9', 'QueryPw9'],
    ['database', 'postgres://gpuops:p@ss@word@db:5432/gpuops', 'p@ss@word'],
    ['database', 'postgres://gpuops:pa/ss99@db:5432/gpuops', 'pa/ss99'],
    ['database', 'postgres://gpuops:p%40ss%2Fword@db/gpuops', 'p@ss/word'],
    ['repoUrl', 'https://bot:tok@en@github.example.com/org/gitops.git', 'tok@en'],
    ['repoUrl', 'https://ghp_abcdef0123456789XYZ@github.com/org/gitops.git', 'ghp_abcdef0123456789XYZ'],
    ['prometheusUrl', 'https://reader:PromPw77@prom.example.com', 'PromPw77'],
    ['dcgmUrl', 'http://scrape:DcgmPw55@10.0.0.1:9400/metrics', 'DcgmPw55'],
  ])('%s %s', (key, url, password) => {
    const given = key === 'dcgmUrl' ? { dcgmUrl: [url] } : { [key]: url };
    const settings = resolveSettings(given, {}, '/nonexistent/gpuops.yaml');
    const { lines, log } = logger(settings);
    log.info({ settings: loggableSettings(settings) }, 'starting gpuops run');
    // An adapter's error that quotes the URL, and one that quotes only the decoded password.
    log.error({ err: new Error(`connect ${url} failed`) }, 'store failed');
    log.warn({ detail: `authentication failed for password "${password}"` }, 'retrying');
    const text = lines.join('');
    expect(lines).toHaveLength(3);
    expect(text).not.toContain(password);
    expect(text).not.toContain(encodeURIComponent(password));
    expect(text).toContain('***@');
    expect(JSON.parse(lines[2]!).detail).toBe('authentication failed for password "[Redacted]"');
  });

  it('keeps a URL without credentials as it is', () => {
    const settings = resolveSettings(
      { prometheusUrl: 'http://prometheus.monitoring:9090' },
      {},
      '/nonexistent/gpuops.yaml',
    );
    const { lines, log } = logger(settings);
    log.info({ settings: loggableSettings(settings) }, 'starting gpuops run');
    expect(JSON.parse(lines[0]!).settings.prometheusUrl).toBe('http://prometheus.monitoring:9090');
  });
});

describe('no GitLab or Gitea token reaches a log line', () => {
  it.each([
    ['gitlab', 'GITLAB_TOKEN', 'gitlabTokenFile', 'gitlabUrl', 'glpat-Abc123Def456Ghi789'],
    ['gitea', 'GITEA_TOKEN', 'giteaTokenFile', 'giteaUrl', '0123456789abcdef0123456789abcdef01234567'],
  ])(
    '%s: the token from %s or from its file, and the password in the URL',
    (provider, envName, fileFlag, urlKey, token) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-log-redaction-'));
      try {
        const tokenFile = path.join(dir, 'token');
        writeFileSync(tokenFile, `${token}-file\n`);
        const url = `https://bot:HostPw42@git.example.com`;
        const fromEnv = resolveSettings(
          { provider, [urlKey]: url },
          { [envName]: token },
          '/nonexistent/gpuops.yaml',
        );
        const fromFile = resolveSettings(
          { provider, [urlKey]: url, [fileFlag]: tokenFile },
          {},
          '/nonexistent/gpuops.yaml',
        );
        for (const [settings, secret] of [
          [fromEnv, token],
          [fromFile, `${token}-file`],
        ] as const) {
          const { lines, log } = logger(settings);
          log.info({ settings: loggableSettings(settings) }, 'starting gpuops run');
          log.error({ err: new Error(`GET ${url}/api with PRIVATE-TOKEN ${secret}: 401`) }, 'host failed');
          log.warn({ detail: `Authorization: token ${secret}` }, 'retrying');
          const text = lines.join('');
          expect(lines).toHaveLength(3);
          expect(text).not.toContain(secret);
          expect(text).not.toContain('HostPw42');
          expect(JSON.parse(lines[0]!).settings[`${provider}Token`]).toBe('[Redacted]');
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
