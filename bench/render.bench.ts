/**
 * Rendering cost: every generated file (Deployment, HPA, kustomization) of 1,000 algorithms, in
 * both scaling engines, plus their benchmark Jobs, as byte-stable YAML. Target: 5 ms per
 * algorithm on a loaded 2-core machine; nearly all of it is `renderYaml` (the `yaml` library).
 */
import { loadWorkloadTemplates } from '../src/benchmark/load-templates.js';
import { specHash } from '../src/benchmark/spec-hash.js';
import { renderBenchmarkJob } from '../src/manifests/benchmark-job.js';
import { renderWorkloadFiles } from '../src/manifests/workloads.js';
import { renderYaml } from '../src/manifests/yaml.js';
import {
  loadDefaultPolicy,
  resolveAlgorithm,
  type Algorithm,
  type PolicySpec,
} from '../src/definitions/index.js';
import type { Figure } from './run.js';
import { medianMs } from './measure.js';

const COUNT = 1000;

export default async function render(): Promise<Figure[]> {
  const policy = await loadDefaultPolicy();
  const templates = loadWorkloadTemplates();
  const algorithms = Array.from({ length: COUNT }, (_, i) => {
    const a: Algorithm = {
      apiVersion: 'gpuops.dev/v1alpha1',
      kind: 'Algorithm',
      metadata: { name: `algorithm-${String(i).padStart(4, '0')}` },
      spec: {
        image: `registry.example.com/ml/model-${i}:1.${i % 10}.0`,
        command: ['python', 'serve.py'],
        args: ['--port=8080', `--shard=${i}`],
        env: [{ name: 'BATCH', value: String(16 + (i % 4) * 16) }],
        resources: { gpus: 1 + (i % 4), cpu: '4', memory: '16Gi' },
        benchmark: { args: ['--bench'], runs: 3 },
      },
    };
    return resolveAlgorithm(a, policy, { file: 'algorithms/bench.yaml', line: 1 });
  });
  const engines: Record<'gpuops' | 'hpa', PolicySpec> = {
    gpuops: policy.spec,
    hpa: { ...policy.spec, scaling: { ...policy.spec.scaling, engine: 'hpa' } },
  };

  const figures: Figure[] = [];
  for (const engine of ['gpuops', 'hpa'] as const) {
    let bytes = 0;
    const ms = await medianMs(() => {
      bytes = 0;
      for (const [i, algorithm] of algorithms.entries()) {
        const files = renderWorkloadFiles({
          algorithm,
          pool: i % 2 ? 'long-task' : 'short-task',
          policy: engines[engine],
          cluster: 'prod',
          templates,
        });
        for (const f of files) bytes += f.content!.length;
      }
    }, 3);
    figures.push({
      name: `render ${COUNT} algorithms (engine ${engine})`,
      value: ms,
      unit: 'ms',
      target: 5000,
    });
    if (bytes === 0) throw new Error('rendered nothing');
  }
  const jobMs = await medianMs(() => {
    for (const algorithm of algorithms) {
      renderYaml(
        renderBenchmarkJob({
          algorithm,
          policy: policy.spec,
          specHash: specHash(algorithm.spec, algorithm.annotations),
          sequence: 1,
          template: templates.benchmarkJob,
        }),
        null,
      );
    }
  }, 3);
  figures.push({
    name: `render ${COUNT} benchmark Jobs with spec hashes`,
    value: jobMs,
    unit: 'ms',
    target: 5000,
  });
  return figures;
}
