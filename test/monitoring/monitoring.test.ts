/**
 * The monitoring bundle under templates/install/monitoring/, checked with Debian's promtool:
 * the PrometheusRule's groups pass `promtool check rules`; `promtool test rules` proves that
 * GpuopsPullRequestWaiting and GpuopsNoLeader fire on their inputs and not before; every PromQL
 * query of the Grafana dashboard parses (as recording rules) and names only metrics gpuops
 * registers or dcgm-exporter exports. Without promtool the suite fails under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createControllerMetrics, registerFleetGauges } from '../../src/controller/metrics.js';

const DIR = path.resolve(import.meta.dirname, '../../templates/install/monitoring');
const PROMTOOL = spawnSync('promtool', ['--version']).status === 0 ? 'promtool' : null;
if (!PROMTOOL && process.env.CI === 'true') {
  throw new Error("promtool is missing under CI=true: .ci/install-services.sh installs Debian's prometheus");
}
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-monitoring-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function promtool(...args: string[]): { code: number; out: string } {
  const r = spawnSync(PROMTOOL!, args, { cwd: work, encoding: 'utf8' });
  return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

/** Writes a `promtool test rules` file named `name` into the work folder and runs it. */
function testRules(name: string, tests: object): { code: number; out: string } {
  writeFileSync(path.join(work, name), stringify(tests));
  return promtool('test', 'rules', name);
}

/** promtool evaluates days of samples: seconds on a quiet machine, far more on a loaded one. */
const PROMTOOL_TIMEOUT_MS = 120_000;

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}
const rule = parse(readFileSync(path.join(DIR, 'prometheusrule.yaml'), 'utf8')) as {
  kind: string;
  spec: { groups: { name: string; rules: Rule[] }[] };
};

describe.skipIf(!PROMTOOL)('PrometheusRule', () => {
  const file = path.join(work, 'rules.yaml');
  writeFileSync(file, stringify(rule.spec));

  it('is a PrometheusRule whose groups pass promtool check rules', () => {
    expect(rule.kind).toBe('PrometheusRule');
    const r = promtool('check', 'rules', file);
    expect(r.out).toContain(`SUCCESS: ${rule.spec.groups[0]!.rules.length} rules found`);
    expect(r.code).toBe(0);
    expect(rule.spec.groups[0]!.rules.map((x) => x.alert)).toEqual(
      expect.arrayContaining([
        'GpuopsPassesFailing',
        'GpuopsNoGPUMetrics',
        'GpuopsBenchmarkStuck',
        'GpuopsPullRequestWaiting',
        'GpuopsNoLeader',
        'GpuopsGitWriteRefused',
      ]),
    );
  });

  it(
    'promtool test rules: a base branch refused for 5 min fires GpuopsGitWriteRefused, not before (issue 23 item 4)',
    () => {
      const tests = {
        rule_files: ['rules.yaml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            // No refusal for 10 min, then main refused from 10 m on; `for: 5m`.
            input_series: [
              {
                series:
                  'gpuops_git_write_refused{job="gpuops",namespace="gpuops-system",ref="main",reason="ProtectedBranch"}',
                values: '_x10 1x20',
              },
            ],
            alert_rule_test: [
              { eval_time: '9m', alertname: 'GpuopsGitWriteRefused', exp_alerts: [] },
              { eval_time: '14m', alertname: 'GpuopsGitWriteRefused', exp_alerts: [] },
              {
                eval_time: '16m',
                alertname: 'GpuopsGitWriteRefused',
                exp_alerts: [
                  {
                    exp_labels: {
                      severity: 'critical',
                      job: 'gpuops',
                      namespace: 'gpuops-system',
                      ref: 'main',
                      reason: 'ProtectedBranch',
                    },
                    exp_annotations: {
                      summary: "Git refuses gpuops's commits to main (ProtectedBranch)",
                      description:
                        "The Git remote refuses gpuops's commits to main (ProtectedBranch), so patch mode scales nothing. Let gpuops push to main (a branch protection bypass for its token) or set scaling.mode: pull-request; `gpuops status` shows the remote's words.",
                    },
                  },
                ],
              },
            ],
          },
        ],
      };
      const r = testRules('refused-tests.yaml', tests);
      expect(r.out).toContain('SUCCESS');
      expect(r.code, r.out).toBe(0);
    },
    PROMTOOL_TIMEOUT_MS,
  );

  it(
    'promtool test rules: a pull request waiting 3 days and a lost leader fire, not before',
    () => {
      const tests = {
        rule_files: ['rules.yaml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            // Opened at t=0 (epoch seconds 0): waits longer than 3 days from 72 h on; `for: 1h`.
            input_series: [
              {
                series:
                  'gpuops_pull_request_opened_timestamp_seconds{job="gpuops",kind="scale",subject="bert-train"}',
                values: '0x4500',
              },
              { series: 'gpuops_leader{job="gpuops",pod="gpuops-0"}', values: '1x4500' },
            ],
            alert_rule_test: [
              { eval_time: '72h', alertname: 'GpuopsPullRequestWaiting', exp_alerts: [] },
              {
                eval_time: '74h',
                alertname: 'GpuopsPullRequestWaiting',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'info', job: 'gpuops', kind: 'scale', subject: 'bert-train' },
                    exp_annotations: {
                      summary: 'gpuops pull request for bert-train waits for review',
                      description:
                        'The scale pull request for bert-train has been open for 3d 2h 0m 0s. Until it is merged the cluster does not get the change (`gpuops prs` lists it with its link).',
                    },
                  },
                ],
              },
            ],
          },
          {
            interval: '1m',
            // The leader's gauge drops to 0 at 10 m and no one takes over; `for: 5m`.
            input_series: [
              { series: 'gpuops_leader{job="gpuops",pod="gpuops-0"}', values: '1x9 0x30' },
              { series: 'gpuops_leader{job="gpuops",pod="gpuops-1"}', values: '0x40' },
            ],
            alert_rule_test: [
              { eval_time: '9m', alertname: 'GpuopsNoLeader', exp_alerts: [] },
              { eval_time: '14m', alertname: 'GpuopsNoLeader', exp_alerts: [] },
              {
                eval_time: '16m',
                alertname: 'GpuopsNoLeader',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'critical' },
                    exp_annotations: {
                      summary: 'no gpuops replica is leading',
                      description:
                        'No gpuops replica has held the leader Lease for 5 minutes; no reconcile pass runs. Check the gpuops Pods and the Lease in gpuops-system.',
                    },
                  },
                ],
              },
            ],
          },
        ],
      };
      const r = testRules('tests.yaml', tests);
      expect(r.out).toContain('SUCCESS');
      expect(r.code, r.out).toBe(0);
    },
    PROMTOOL_TIMEOUT_MS,
  );

  it(
    'promtool test rules fails when an alert fires too early (the check can fail)',
    () => {
      const wrong = {
        rule_files: ['rules.yaml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: [{ series: 'gpuops_leader{job="gpuops",pod="gpuops-0"}', values: '0x20' }],
            alert_rule_test: [{ eval_time: '10m', alertname: 'GpuopsNoLeader', exp_alerts: [] }],
          },
        ],
      };
      expect(testRules('wrong.yaml', wrong).code).not.toBe(0);
    },
    PROMTOOL_TIMEOUT_MS,
  );
});

describe('Grafana dashboard', () => {
  interface Panel {
    type: string;
    title: string;
    targets?: { expr: string }[];
  }
  const dash = JSON.parse(readFileSync(path.join(DIR, 'grafana-dashboard.json'), 'utf8')) as {
    uid: string;
    panels: Panel[];
    templating: { list: { name: string; query: unknown }[] };
  };
  const exprs = dash.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  const concrete = (e: string) =>
    e.replace(/\$__rate_interval|\$__range/g, '5m').replace(/"\$[a-z]+"/g, '".*"');

  it('has a panel for each thing an operator watches', () => {
    const titles = dash.panels.map((p) => p.title).join(' | ');
    for (const t of [
      'Reconcile passes',
      'Pass duration',
      'Decisions by reason',
      'Open pull requests',
      'Age of open pull requests',
      'against its band',
      'DCGM',
      'Nodes per pool',
    ])
      expect(titles).toContain(t);
  });

  it('names only metrics gpuops registers or dcgm-exporter exports', async () => {
    const metrics = createControllerMetrics(false);
    registerFleetGauges(metrics.registry, async () => ({ fleet: null, openPullRequests: [] }));
    const known = new Set(
      [...(await metrics.registry.metrics()).matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, n, t]) =>
        t === 'histogram' ? [`${n}_bucket`, `${n}_sum`, `${n}_count`] : [n!],
      ),
    );
    const used = new Set(
      exprs.flatMap((e) => [...e.matchAll(/\b(gpuops_[a-z_]+|DCGM_[A-Z_]+)\b/g)].map((m) => m[1]!)),
    );
    expect(used.size).toBeGreaterThan(8);
    for (const name of used) if (name.startsWith('gpuops_')) expect(known, name).toContain(name);
  });

  it.skipIf(!PROMTOOL)('every query parses (promtool check rules over them as recording rules)', () => {
    const file = path.join(work, 'dashboard-rules.yaml');
    writeFileSync(
      file,
      stringify({
        groups: [
          {
            name: 'dashboard',
            rules: exprs.map((e, i) => ({ record: `dashboard:q${i}`, expr: concrete(e) })),
          },
        ],
      }),
    );
    const r = promtool('check', 'rules', file);
    expect(r.code, r.out).toBe(0);
    // The check can fail: a broken query is reported.
    writeFileSync(
      file,
      stringify({ groups: [{ name: 'x', rules: [{ record: 'x:y', expr: 'sum by (a (x)' }] }] }),
    );
    expect(promtool('check', 'rules', file).code).not.toBe(0);
  });
});
