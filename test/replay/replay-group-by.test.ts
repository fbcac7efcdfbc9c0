/**
 * `gpuops replay --trace FILE --group-by LABELS` (issue 25 section 3): a `query_range` answer the
 * test writes itself, two deployments of one namespace, through the CLI in process; the fleet's
 * static and ideal lines are checked against an independent computation from the input.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-group-by-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STEP = 60;
const N = 90;
const T0 = 1_700_000_000;

/** Deployment `a`: 3 pods at 30–90 %; `b`: 2 pods at 60 %, the second only in the second half. */
function history(): { file: string; pods: Map<string, number[][]> } {
  const pods = new Map<string, number[][]>();
  const result: { metric: Record<string, string>; values: [number, string][] }[] = [];
  const add = (deployment: string, name: string, value: (i: number) => number | null) => {
    const values: [number, string][] = [];
    for (let i = 0; i < N; i++) {
      const v = value(i);
      if (v !== null) values.push([T0 + i * STEP, v.toFixed(1)]);
    }
    result.push({ metric: { namespace: 'ml', deployment, pod: name, instance: '10.0.0.1:9400' }, values });
    pods.set(deployment, [...(pods.get(deployment) ?? []), values.map(([, v]) => Number(v))]);
  };
  for (let p = 0; p < 3; p++) add('a', `a-${p}`, (i) => 60 + 30 * Math.sin((i + 7 * p) / 9));
  add('b', 'b-0', () => 60);
  add('b', 'b-1', (i) => (i >= N / 2 ? 60 : null));
  const file = path.join(dir, 'history.json');
  writeFileSync(file, JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }));
  return { file, pods };
}

const { file, pods } = history();
const line = (out: string, engine: string) => {
  const m = new RegExp(`^\\s+${engine}\\s+util\\s+([\\d.]+) %\\s+GPU-h\\s+([\\d.]+)`, 'm').exec(out);
  if (!m) throw new Error(`no line for ${engine} in:\n${out}`);
  return { util: Number(m[1]), gpuHours: Number(m[2]) };
};

describe('gpuops replay --group-by', { timeout: 120_000 }, () => {
  it('replays one service per deployment; static and ideal match the input', async () => {
    const r = await runMain('replay', '--trace', file, '--group-by', 'namespace,deployment');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`services of ${file} by namespace,deployment: 0 ml/a, 1 ml/b\n`);
    expect(r.out).toContain('fleet of 2 services');
    const all = [...pods.values()].flat(2);
    const st = line(r.out, 'static');
    expect(st.gpuHours).toBeCloseTo((all.length * STEP) / 3600, 1);
    // Rounded to two decimals, then printed to one.
    expect(Math.abs(st.util - all.reduce((a, b) => a + b, 0) / all.length)).toBeLessThanOrEqual(0.1);
    // Ideal: per service and instant, ceil(Σ its pods' values / max 80) GPUs.
    let ideal = 0;
    for (const series of pods.values())
      for (let i = 0; i < N; i++) {
        const load = series.reduce(
          (a, s) => a + (s.length === N ? s[i]! : i >= N / 2 ? s[i - N / 2]! : 0),
          0,
        );
        ideal += Math.ceil(load / 80);
      }
    expect(line(r.out, 'ideal').gpuHours).toBeCloseTo((ideal * STEP) / 3600, 1);
    expect(r.out).toMatch(/^\s+hpa 55 %/m);
    expect(r.out).toMatch(/^\s+gpuops β 1 /m);
  });

  it('--hours cuts every service alike', async () => {
    const r = await runMain('replay', '--trace', file, '--group-by', 'deployment', '--hours', '0.5');
    expect(r.code).toBe(0);
    expect(line(r.out, 'static').gpuHours).toBeCloseTo((30 * 4 * STEP) / 3600, 1); // b-1 not yet there
  });

  it.each([
    [
      'a CSV trace',
      ['--group-by', 'deployment'],
      'value,timestamp_anon,container_ip\n10,1,a\n',
      1,
      'needs a Prometheus query_range answer (JSON)',
    ],
    [
      'a label the series lack',
      ['--group-by', 'app'],
      null,
      1,
      'data.result[0].metric: no label "app" to group by (has: namespace, deployment, pod, instance)',
    ],
    [
      'with --services',
      ['--group-by', 'deployment', '--services', '2'],
      null,
      2,
      '--group-by and --services',
    ],
    [
      'a bad label name',
      ['--group-by', 'app.kubernetes.io/name'],
      null,
      2,
      'expected comma-separated label names',
    ],
  ])('refuses %s, naming the file or flag', async (_n, args, text, code, message) => {
    let trace = file;
    if (text !== null) writeFileSync((trace = path.join(dir, 'trace.csv')), text);
    const r = await runMain('replay', '--trace', trace, ...args);
    expect(r.err).toContain(message);
    if (code === 1) expect(r.err).toContain(trace);
    expect(r.code).toBe(code);
  });
});
