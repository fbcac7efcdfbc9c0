/**
 * Bands from the benchmark on the simulated cluster, through the real reconcile pass: while the
 * benchmark Job of a spec with `scaling.targets: fromBenchmark` runs, the pass reads its signal
 * from the simulated dcgm-exporter pages (a benchmark pod shows the load model's
 * `jobUtilizationPercent` on its GPU) and stores it beside the run; the placement pull request
 * then proposes the band from it and names where each number came from. A spec that sets its own
 * band keeps it, and its pull request says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { planWorld } from '../../src/pass/plan.js';
import { readWorld } from '../../src/pass/read-world.js';
import { passSources } from '../../src/pass/reconcile.js';
import { gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const NODES = [
  gpuNode('gpu-test', 2),
  gpuNode('gpu-long', 4, 'long-task'),
  gpuNode('gpu-short', 4, 'short-task'),
];

/** A 1-GPU algorithm benchmarked for `seconds`, with `scaling` lines under `spec.scaling`. */
function spec(name: string, seconds: number, scaling: string[]): string {
  return [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    `  name: ${name}`,
    '  namespace: algorithms',
    'spec:',
    `  image: registry.example.com/ml/${name}:1.0.0`,
    '  resources: {gpus: 1, cpu: "2", memory: 8Gi}',
    '  benchmark:',
    `    args: [--bench, --sim-duration=${seconds}]`,
    '    runs: 1',
    '  scaling:',
    ...scaling.map((l) => `    ${l}`),
    '',
  ].join('\n');
}

const POLICY = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata:',
  '  name: test',
  'spec:',
  '  scaling:',
  '    fromBenchmark: {allowed: true, headroom: 0.2, bandRatio: 0.5}',
  '',
].join('\n');

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    nodes: NODES,
    files: {
      'README.md': '# gitops\n',
      'policies/test.yaml': POLICY,
      'algorithms/llm.yaml': spec('llm', 400, ['targets: fromBenchmark']),
      'algorithms/own.yaml': spec('own', 400, ['targets: fromBenchmark', 'utilization: {min: 20, max: 60}']),
    },
  });
  h.setMetrics(
    new DcgmScrapeSource({
      targets: NODES.map((n) => ({
        url: `${h.sim.url}/dcgm/${n.metadata.name}/metrics`,
        node: n.metadata.name,
      })),
      now: () => h.sim.clock.now(),
    }),
  );
  await h.pass();
  h.merge('gpuops/prod/pools');
  expect((await h.sync()).errors).toEqual([]);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('a band proposed from the benchmark, on the simulated cluster', () => {
  it('records the signal while the benchmark runs and proposes max = 95 % × 0.8, min = max × 0.5 in the placement PR', async () => {
    await h.pass(); // creates the benchmark Jobs
    h.sim.clock.advance(120);
    await h.pass(); // sees them running: one sample each
    h.sim.clock.advance(120);
    await h.pass(); // another
    const samples = await h.store.benchmarkSignalSamples!('llm', await hashOf('llm'));
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(samples.map((s) => [s.signal, s.unit, s.value, s.reason])).toEqual(
      samples.map(() => ['gpuUtil', '%', 95, null]),
    );
    expect(samples[0]!.jobName).toMatch(/^llm-bench-/);

    h.sim.clock.advance(600);
    const placed = await h.pass();
    expect(placed.plan.placements.find((p) => p.algorithm === 'llm')?.pool).toBe('short-task');
    const prs = await h.store.pullRequests('prod');
    const body = prs.find((r) => r.branch === 'gpuops/prod/placement/llm')!.body;
    const job = samples[0]!.jobName;
    expect(body).toContain('**Band proposed from the benchmark**');
    expect(body).toMatch(
      new RegExp(
        `\\| max \\| 76 % \\| benchmark run \`${job}\` at \\S+ \\(\\d+ samples of \`gpuUtil\`\\): saturation 95 % × \\(1 − headroom 0\\.2\\) \\|`,
      ),
    );
    expect(body).toContain('| min | 38 % | max 76 % × band ratio 0.5 |');
    // `gpuops plan` (the world read from the store, then planned) proposes the same band.
    const planned = planWorld(await readWorld(passSources(h.deps), h.sim.clock.now()), {
      templates: loadWorkloadTemplates(),
    });
    const llmSet = planned.changeSets.find((c) => c.branch === 'gpuops/prod/placement/llm');
    expect(llmSet?.body).toContain('| min | 38 % | max 76 % × band ratio 0.5 |');

    const own = prs.find((r) => r.branch === 'gpuops/prod/placement/own')!.body;
    expect(own).toContain('**No band proposed from the benchmark**');
    expect(own).toContain('the spec sets both min and max');
  }, 120_000);
});

async function hashOf(name: string): Promise<string> {
  const { parse } = await import('yaml');
  const doc = parse(h.file('main', `algorithms/${name}.yaml`)!) as {
    spec: never;
    metadata: { annotations?: Record<string, string> };
  };
  return specHash(doc.spec, doc.metadata.annotations);
}
