/**
 * Golden files of the examples a newcomer reads first (issue 24): every file gpuops renders for
 * each valid algorithm of `examples/gitops-repo` — its Deployment, its Service when the container
 * declares ports, its benchmark Job — under the examples' own policy (`policies/demo.yaml` over the
 * shipped default), compared byte for byte with `expected/examples/`, and each object checked
 * against the Kubernetes schema. Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/golden` and
 * review the diff.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { loadRepo } from '../../src/definitions/load.js';
import type { LoadedRepo, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { renderWorkloadFiles } from '../../src/manifests/workloads.js';
import { renderYaml } from '../../src/manifests/yaml.js';
import { algorithmProducts } from '../../src/placement/gpu-products.js';
import { place } from '../../src/placement/place.js';
import { RUN_SECONDS_ANNOTATION } from '../../src/sim/controllers/run-rule.js';
import { templates } from '../manifests/helpers.js';
import { EXPECTED, expectValidObject, golden, listFiles } from './golden-file.js';

const REPO = fileURLToPath(new URL('../../examples/gitops-repo', import.meta.url));
/** The valid examples, and the files of their folders; whisper-asr is wrong on purpose. */
const EXAMPLES: Record<string, string[]> = {
  'bert-train': ['deployment.yaml'],
  'resnet50-infer': ['deployment.yaml', 'service.yaml'],
};
let repo: LoadedRepo;

beforeAll(async () => {
  repo = await loadRepo(REPO);
});

const algorithm = (name: string): ResolvedAlgorithm => repo.algorithms.find((a) => a.name === name)!;

/**
 * The pool the demo places an example on: its simulated run time (the annotation the simulated
 * cluster reads) against the policy's threshold, through the real placement rule.
 */
function poolOf(a: ResolvedAlgorithm): 'long-task' | 'short-task' {
  const seconds = Number(a.annotations?.[RUN_SECONDS_ANNOTATION]);
  const benchmark = { status: 'Succeeded' as const, medianSeconds: seconds, message: '' };
  const placed = place({ algorithm: a.name, pinned: a.placement, benchmark }, repo.policy.spec.placement.longTaskThresholdSeconds);
  return placed.pool as 'long-task' | 'short-task';
}

/** The files of an example's folder, keyed by their golden path, as the demo's pass renders them. */
function workloadGoldens(name: string): Map<string, string> {
  const a = algorithm(name);
  const files = renderWorkloadFiles({
    algorithm: a,
    pool: poolOf(a),
    policy: repo.policy.spec,
    cluster: 'demo',
    templates: templates(),
    gpuProducts: algorithmProducts(a.spec.gpu?.product, [], () => null).products,
  });
  return new Map(files.map((f) => [`examples/${f.path}`, f.content!]));
}

/** The first benchmark Job of an example, keyed by its golden path. */
function jobGolden(name: string): [string, string] {
  const a = algorithm(name);
  const job = renderBenchmarkJob({
    algorithm: a,
    policy: repo.policy.spec,
    specHash: specHash(a.spec, a.annotations),
    sequence: 1,
    template: templates().benchmarkJob,
  });
  return [`examples/benchmark-job/${name}.yaml`, renderYaml(job, null)];
}

describe('examples/gitops-repo', () => {
  it('holds the valid examples listed here and the one wrong on purpose', () => {
    expect(repo.algorithms.map((a) => a.name).sort()).toEqual(Object.keys(EXAMPLES));
    expect(new Set(repo.errors.map((e) => e.file))).toEqual(new Set(['algorithms/whisper-asr.yaml']));
  });

  it('places the service on short-task and the batch task on long-task (as the demo does)', () => {
    expect(poolOf(algorithm('resnet50-infer'))).toBe('short-task');
    expect(poolOf(algorithm('bert-train'))).toBe('long-task');
  });

  it.each(Object.keys(EXAMPLES))('%s: every file of its folder', (name) => {
    const files = workloadGoldens(name);
    expect([...files.keys()].map((k) => path.posix.basename(k))).toEqual(EXAMPLES[name]);
    for (const [rel, content] of files) golden(rel, content);
  });

  it.each(Object.keys(EXAMPLES))('%s: benchmark Job', (name) => {
    golden(...jobGolden(name));
  });

  it.each(Object.keys(EXAMPLES))('%s: every rendered object passes the Kubernetes schema', (name) => {
    for (const text of [...workloadGoldens(name).values(), jobGolden(name)[1]]) expectValidObject(text);
  });

  it('expected/examples/ holds exactly the files rendered here: a stale file fails too', () => {
    const rendered = Object.keys(EXAMPLES).flatMap((n) => [...workloadGoldens(n).keys(), jobGolden(n)[0]]);
    expect(listFiles(path.join(EXPECTED, 'examples')).sort()).toEqual(rendered.sort());
  });
});
