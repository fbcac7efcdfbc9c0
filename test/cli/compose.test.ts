import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { compose } from '../../src/compose/compose.js';
import { utilizationSource } from '../../src/compose/metrics.js';
import { settingsWith } from '../../src/config/settings.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { MetricsFileSource } from '../../src/metrics/metrics-file.js';
import { PrometheusSource } from '../../src/metrics/prometheus.js';

const now = () => new Date('2026-12-01T10:00:00Z');

describe('utilizationSource: the first source the settings name', () => {
  it.each([
    [
      'files win over everything',
      { metricsFiles: ['m.prom'], prometheusUrl: 'http://p', dcgmUrl: ['http://d'] },
      MetricsFileSource,
    ],
    ['Prometheus before dcgm pages', { prometheusUrl: 'http://p', dcgmUrl: ['http://d'] }, PrometheusSource],
    ['dcgm pages by URL', { dcgmUrl: ['http://d'] }, DcgmScrapeSource],
    ['dcgm targets with their nodes', { dcgmTargets: [{ url: 'http://d', node: 'n1' }] }, DcgmScrapeSource],
  ])('%s', (_name, settings, kind) => {
    expect(utilizationSource(settings, now)).toBeInstanceOf(kind);
  });

  it.each([
    ['nothing set', {}],
    ['empty lists', { metricsFiles: [], dcgmUrl: [], dcgmTargets: [] }],
  ])('none with %s (every decision is then "no data")', (_name, settings) => {
    expect(utilizationSource(settings, now)).toBeNull();
  });

  it('sends the Prometheus token as a bearer header, and no header without one', () => {
    const opts = (s: PrometheusSource) =>
      (s as unknown as { options: { headers?: Record<string, string> } }).options;
    const withToken = utilizationSource(
      { prometheusUrl: 'http://p', prometheusToken: 't0k' },
      now,
    ) as PrometheusSource;
    const without = utilizationSource(
      { prometheusUrl: 'http://p', prometheusToken: '' },
      now,
    ) as PrometheusSource;
    expect(opts(withToken).headers).toEqual({ Authorization: 'Bearer t0k' });
    expect(opts(without).headers).toBeUndefined();
  });

  it('asks for the AMD exporter under the job --amd-metrics-job names, and its default without one', () => {
    const selectors = (s: PrometheusSource) => (s as unknown as { selectors: { amd: string } }).selectors;
    const named = utilizationSource({ prometheusUrl: 'http://p', amdMetricsJob: 'gpu-mon' }, now);
    const unnamed = utilizationSource({ prometheusUrl: 'http://p' }, now);
    expect(selectors(named as PrometheusSource).amd).toContain('job=~"gpu-mon"');
    expect(selectors(unnamed as PrometheusSource).amd).toContain('job=~".*metrics-exporter"');
  });
});

describe('compose: settings → adapters, errors name the setting', () => {
  const kubeConfig = new KubeConfig();
  it.each([
    ['no --repo-url', settingsWith({ database: 'sqlite::memory:' }), /--repo-url/],
    [
      'github without a token',
      settingsWith({
        database: 'sqlite::memory:',
        repoUrl: 'https://github.com/o/r.git',
        provider: 'github',
      }),
      /GITHUB_TOKEN/,
    ],
    [
      'github with no OWNER/NAME',
      settingsWith({
        database: 'sqlite::memory:',
        repoUrl: '/tmp/x.git',
        provider: 'github',
        githubToken: 't',
      }),
      /--github-repo/,
    ],
  ])('%s', async (_name, settings, message) => {
    await expect(compose(settings, { kubeConfig, env: {} })).rejects.toThrow(message);
  });
});
