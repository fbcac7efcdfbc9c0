/**
 * The simulated cluster with AMD nodes: the fleet generator's `amdNodes`, the scheduler and
 * kubelet counting `amd.com/gpu`, and the AMD exporter page a node of them serves, read back
 * through gpuops's own page parser.
 */
import { describe, expect, it } from 'vitest';
import { parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import { formatExporterPage } from '../../src/sim/dcgm/amd-page.js';
import { dcgmGpus } from '../../src/sim/dcgm/page.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { nodeGpuCount } from '../../src/sim/controllers/kubelet.js';
import { generateFleet } from '../../src/sim/fleet.js';
import { LoadModel } from '../../src/sim/load-model.js';
import { DCGM } from '../../src/util/vocabulary.js';
import { Harness, gpuNode, gpuPodSpec } from '../sim-behaviour/harness.js';

const T0 = '2026-12-01T10:00:00Z';

function deployment(name: string, replicas: number, spec: Record<string, unknown>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'algorithms' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name, 'gpuops.dev/algorithm': name } }, spec },
    },
  };
}
const amdSpec = {
  containers: [
    { name: 'llm', image: 'registry.example.com/ml/llm:1', resources: { limits: { 'amd.com/gpu': '1' } } },
  ],
  tolerations: [{ key: 'amd.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
};

describe('simulated AMD nodes', () => {
  it('the fleet generator adds labelled, tainted MI300X nodes and leaves the NVIDIA fleet as it was', () => {
    const without = generateFleet({ gpuNodes: 3, seed: 7 });
    const withAmd = generateFleet({ gpuNodes: 3, seed: 7, amdNodes: 2 });
    const amd = withAmd.nodes.items.filter((n) => n.metadata.name.startsWith('amd-'));
    expect(withAmd.nodes.items.slice(0, without.nodes.items.length)).toEqual(without.nodes.items);
    expect(
      amd.map((n) => [n.metadata.name, n.metadata.labels?.['amd.com/gpu.product-name'], nodeGpuCount(n)]),
    ).toEqual([
      ['amd-mi300x-0001', 'AMD_Instinct_MI300X_OAM', 8],
      ['amd-mi300x-0002', 'AMD_Instinct_MI300X_OAM', 8],
    ]);
    expect(amd[0]!.spec.taints).toEqual([{ key: 'amd.com/gpu', value: 'present', effect: 'NoSchedule' }]);
    expect(() => generateFleet({ gpuNodes: 1, amdNodes: -1 })).toThrow(/amdNodes/);
  });

  it('schedules amd.com/gpu pods on the AMD node only and serves its exporter page with their utilisation', () => {
    const amdNode = generateFleet({ gpuNodes: 0, cpuNodes: 0, podsPerNode: 0, amdNodes: 1 }).nodes.items[0]!;
    const h = new Harness(defaultControllers({ garbageCollection: true }), T0);
    h.apply('nodes', amdNode);
    h.apply('nodes', gpuNode('nv-1', 4, { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' }));
    h.apply('deployments', deployment('llm', 3, amdSpec));
    h.apply('deployments', deployment('infer', 2, gpuPodSpec(1)));
    h.settle();
    const pods = h.store.list('pods');
    const on = (prefix: string) => [
      ...new Set(pods.filter((p) => p.metadata.name.startsWith(prefix)).map((p) => p.spec.nodeName)),
    ];
    expect(on('llm-')).toEqual(['amd-mi300x-0001']);
    expect(on('infer-')).toEqual(['nv-1']);

    const load = new LoadModel({ foreignUtilizationPercent: 0 });
    load.setLoad('llm', 150);
    const node = h.store.get('nodes', undefined, 'amd-mi300x-0001')!;
    const page = formatExporterPage(node, dcgmGpus(node, pods, load, h.now()));
    expect(page).toContain('# TYPE gpu_gfx_activity gauge');
    expect(page).not.toContain('DCGM_FI_');
    const series = parseDcgmPage(page, {
      source: 'amd-mi300x-0001',
      scrapedAtMs: Date.parse(T0),
      metrics: [DCGM.GPU_UTIL],
    });
    expect(series).toHaveLength(8);
    const held = series.filter((s) => s.labels.pod !== '');
    expect(held.map((s) => [s.labels.namespace, s.labels.node, s.value])).toEqual([
      ['algorithms', 'amd-mi300x-0001', 50],
      ['algorithms', 'amd-mi300x-0001', 50],
      ['algorithms', 'amd-mi300x-0001', 50],
    ]);
    const nv = h.store.get('nodes', undefined, 'nv-1')!;
    expect(formatExporterPage(nv, dcgmGpus(nv, pods, load, h.now()))).toContain('DCGM_FI_DEV_GPU_UTIL{');
  });
});
