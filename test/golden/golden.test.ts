/**
 * Golden files: every manifest gpuops renders for the inputs in `input/`, in both scaling
 * engines, compared byte for byte with `expected/`. After an intended change, regenerate with
 * `UPDATE_GOLDEN=1 npx vitest run test/golden` and review the diff. The examples of
 * `examples/gitops-repo` have their own goldens (`examples.test.ts`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { parse } from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { isKustomizationFile } from '../../src/manifests/cluster-layout.js';
import { renderNamespaceFiles } from '../../src/manifests/namespaces.js';
import { renderWorkloadFiles, type WorkloadPool } from '../../src/manifests/workloads.js';
import { renderYaml } from '../../src/manifests/yaml.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from '../manifests/helpers.js';
import { EXPECTED, expectValidObject, golden, listFiles } from './golden-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const POOLS: Record<string, WorkloadPool> = {
  'resnet50-infer': 'short-task',
  'llm-finetune': 'long-task',
  'triton-serve': 'short-task',
};
const ENGINES = ['gpuops', 'hpa'] as const;
/** The inputs whose container declares ports, so their folder holds a service.yaml. */
const SERVICES = new Set(['triton-serve']);
let policies: Record<'gpuops' | 'hpa', Policy>;
let algorithms: ResolvedAlgorithm[];

beforeEach(async () => {
  policies = {
    // The inputs run in `vision` beside the default `algorithms` (issue 29 item 1: an allow-list).
    gpuops: await policyWith((p) => (p.allowedNamespaces = ['algorithms', 'vision'])),
    hpa: await policyWith((p) => {
      p.allowedNamespaces = ['algorithms', 'vision'];
      p.scaling.engine = 'hpa';
    }),
  };
  algorithms = algorithmsFromYaml(readFileSync(path.join(here, 'input/algorithms.yaml'), 'utf8'), policies.gpuops, 'algorithms/golden.yaml');
});

/** The workload files of one algorithm in one engine, keyed by their golden path. */
function workloadGoldens(engine: (typeof ENGINES)[number], name: string): Map<string, string> {
  const alg = algorithms.find((a) => a.name === name)!;
  const files = renderWorkloadFiles({
    algorithm: alg,
    pool: POOLS[name]!,
    policy: policies[engine].spec,
    cluster: 'prod',
    templates: templates(),
  });
  return new Map(files.map((f) => [`${engine}/${f.path}`, f.content!]));
}

/** The benchmark Job of one algorithm, keyed by its golden path. */
function jobGolden(name: string): [string, string] {
  const alg = algorithms.find((a) => a.name === name)!;
  const job = renderBenchmarkJob({
    algorithm: alg,
    policy: policies.gpuops.spec,
    specHash: specHash(alg.spec, alg.annotations),
    sequence: 1,
    gpuProduct: name === 'llm-finetune' ? 'NVIDIA-H100-80GB-HBM3' : null,
    template: templates().benchmarkJob,
  });
  return [`benchmark-job/${name}.yaml`, renderYaml(job, null)];
}

describe.each(ENGINES)('engine %s', (engine) => {
  it.each(Object.keys(POOLS))('%s: every file of its folder', (name) => {
    const files = workloadGoldens(engine, name);
    // deployment.yaml (+ hpa.yaml) (+ service.yaml when the container declares ports), no kustomization
    expect(files.size).toBe((engine === 'hpa' ? 2 : 1) + (SERVICES.has(name) ? 1 : 0));
    for (const [rel, content] of files) golden(rel, content);
  });
});

describe('namespace files', () => {
  it('one file per algorithm namespace: the Namespace (wave -2, never pruned) and the benchmark RoleBinding', () => {
    const files = renderNamespaceFiles('prod', [...algorithms.map((a) => a.namespace), 'vision']);
    expect(files.map((f) => f.path)).toEqual([
      'clusters/prod/namespaces/algorithms.yaml',
      'clusters/prod/namespaces/vision.yaml',
    ]);
    expect(files.some((f) => isKustomizationFile(f.path))).toBe(false);
    for (const f of files) golden(`namespaces/${f.path}`, f.content);
  });
});

describe('benchmark Job', () => {
  it.each(Object.keys(POOLS))('%s', (name) => {
    golden(...jobGolden(name));
  });
});

describe('Kubernetes schema (kubernetes-models 4.5.0)', () => {
  it.each(Object.keys(POOLS))('%s: every rendered object passes', (name) => {
    const texts = [...ENGINES.flatMap((e) => [...workloadGoldens(e, name).values()]), jobGolden(name)[1]];
    for (const text of texts) expectValidObject(text);
  });

  it('the check can fail: a port that is no number is refused', () => {
    const obj = parse(workloadGoldens('gpuops', 'triton-serve').values().next().value!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    obj.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    expect(() => new Deployment(obj).validate()).toThrow(/containerPort/);
  });
});

describe('expected/', () => {
  it('holds exactly the files gpuops renders: a stale file fails too', () => {
    const rendered = [
      ...ENGINES.flatMap((e) => Object.keys(POOLS).flatMap((n) => [...workloadGoldens(e, n).keys()])),
      ...Object.keys(POOLS).map((n) => jobGolden(n)[0]),
      'namespaces/clusters/prod/namespaces/algorithms.yaml',
      'namespaces/clusters/prod/namespaces/vision.yaml',
    ].sort();
    // expected/examples/ belongs to examples.test.ts, which checks it the same way.
    const files = listFiles(EXPECTED).filter((f) => !f.startsWith(`examples${path.sep}`));
    expect(files.sort()).toEqual(rendered);
  });
});
