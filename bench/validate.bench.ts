/**
 * Loading and validating 1,000 Algorithm specs (one file each, as people commit them) plus a
 * policy override, through `loadRepo`: disk reads, YAML parsing with positions, schema checks,
 * defaults. Target: under 1 s. Every 10th spec is invalid, so the error path is measured too.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRepo } from '../src/definitions/load.js';
import { medianMs } from './measure.js';
import type { Figure } from './run.js';

const SPECS = 1000;

function spec(i: number): string {
  const bad = i % 10 === 9;
  return `apiVersion: gpuops.dev/v1alpha1
kind: Algorithm
metadata:
  name: algo-${i}
  labels: {team: "ml-${i % 7}"}
spec:
  image: registry.example.com/ml/algo-${i}:1.${i % 13}.0
  command: ["python", "serve.py"]
  args: ["--port=8080"]
  env: [{name: BATCH, value: "32"}]
  resources: {gpus: ${bad ? 0.5 : 1 + (i % 4)}, cpu: "${1 + (i % 8)}", memory: ${bad ? '16g' : '16Gi'}}
  benchmark: {args: ["--bench"], runs: 3, timeoutSeconds: 1800}
  scaling: {minReplicas: 1, maxReplicas: 8, utilization: {min: 30, max: 80}}
  placement: {pool: auto}
`;
}

export default async function bench(): Promise<Figure[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gpuops-bench-validate-'));
  try {
    await mkdir(path.join(dir, 'algorithms'), { recursive: true });
    await mkdir(path.join(dir, 'policies'), { recursive: true });
    await writeFile(
      path.join(dir, 'policies/team.yaml'),
      'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec: {scaling: {maxReplicas: 16}}\n',
    );
    await Promise.all(
      Array.from({ length: SPECS }, (_, i) =>
        writeFile(path.join(dir, `algorithms/algo-${i}.yaml`), spec(i)),
      ),
    );
    let last = { algorithms: 0, errors: 0 };
    const cpuMs: number[] = [];
    const ms = await medianMs(async () => {
      const cpu = process.cpuUsage();
      const r = await loadRepo(dir);
      const used = process.cpuUsage(cpu);
      cpuMs.push((used.user + used.system) / 1000);
      last = { algorithms: r.algorithms.length, errors: r.errors.length };
    }, 5);
    cpuMs.sort((a, b) => a - b);
    if (last.algorithms !== SPECS * 0.9 || last.errors !== SPECS * 0.2) {
      throw new Error(`validate bench: expected 900 valid and 200 errors, got ${JSON.stringify(last)}`);
    }
    return [
      { name: `validate: load and check ${SPECS} specs (loadRepo)`, value: ms, unit: 'ms', target: 1000 },
      // CPU time of the same work: the wall time on an idle core (CI machines are often shared).
      {
        name: `validate: CPU time for ${SPECS} specs`,
        value: cpuMs[Math.floor(cpuMs.length / 2)]!,
        unit: 'ms',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
