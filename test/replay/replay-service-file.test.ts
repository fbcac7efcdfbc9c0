/**
 * `gpuops replay --service-file`: on files the test writes, one service prints the duty cycle and
 * requests per second side by side (and `analysis.json` holds them); a fleet refuses the flag; an
 * unreadable file is a usage error naming it, a bad row an error naming its line and field.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-service-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 40 one-minute instants of 4 pods at 40 %; 0.2 requests/s per pod (0.8 in all). */
const trace = path.join(dir, 'trace.csv');
const qps = path.join(dir, 'qps.csv');
const t = (j: number) => 1662858720 + 60 * j;
const rows = ['value,timestamp_anon,container_ip'];
const q = ['timestamp_anon,value,container_ip,request_type'];
for (let j = 0; j < 40; j++)
  for (let p = 0; p < 4; p++) {
    rows.push(`40,${t(j)},10.0.0.${p}`);
    q.push(`${t(j)},0.2,10.0.0.${p},Generative Requests`);
  }
writeFileSync(trace, rows.join('\n') + '\n');
writeFileSync(qps, q.join('\n') + '\n');

const replay = (...args: string[]) =>
  runMain('replay', '--trace', trace, '--engines', 'static', '--no-loops', ...args);

describe('gpuops replay --service-file', { timeout: 120_000 }, () => {
  it('prints each engine on the duty cycle and on requests per second, and writes them to analysis.json', async () => {
    const report = path.join(dir, 'report');
    const r = await replay('--service-file', qps, '--report', report);
    expect(r.err).not.toContain('gpuops:');
    expect(r.code).toBe(0);
    // 0.8 requests/s over 160 GPU-percent: 0.005 per GPU-percent; band 30–80 % → 0.15–0.4.
    expect(r.out).toContain(
      'requests per second band 0.150–0.400 requests/s per replica, HPA target 0.275: the duty-cycle band 30–80 % and target 55 % × 0.00500 requests/s per GPU-percent (first half); 0 of 40 instants without a reading (held)',
    );
    expect(r.out).toMatch(/^ {2}hpa .* \/ .*$/m);
    expect(r.out).toMatch(/^ {2}gpuops .* \/ .*$/m);
    const analysis = JSON.parse(readFileSync(path.join(report, 'analysis.json'), 'utf8')) as {
      signals: { runs: { figures: { engine: string } }[] };
    };
    expect(analysis.signals.runs.map((x) => x.figures.engine)).toEqual([
      'hpa on duty cycle',
      'hpa on requests per second',
      'gpuops on duty cycle',
      'gpuops on requests per second',
    ]);
  });

  it('without it, no signals section', async () => {
    const r = await replay();
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('signals:');
  });

  it('a fleet refuses it (exit 2)', async () => {
    const r = await replay('--service-file', qps, '--services', '2');
    expect(r.err).toBe(
      'gpuops: --service-file replays one service: not with --services, --group-by or --pod-groups\n',
    );
    expect(r.code).toBe(2);
  });

  it('an unreadable file: a usage error naming the flag and the file (exit 2)', async () => {
    const missing = path.join(dir, 'none.csv');
    const r = await replay('--service-file', missing);
    expect(r.err).toContain(`gpuops: --service-file ${missing}: cannot read:`);
    expect(r.code).toBe(2);
  });

  it('a bad row: its file, line and field (exit 1)', async () => {
    const bad = path.join(dir, 'bad.csv');
    writeFileSync(bad, `${q[0]}\n${q[1]}\n${t(1)},lots,10.0.0.1,x\n`);
    const r = await replay('--service-file', bad);
    expect(r.err).toContain(`${bad}:3: value: expected a finite number 0 or more, got "lots"`);
    expect(r.code).toBe(1);
  });
});
