/**
 * Which node a GPU series comes from, and whether it may count for the pod it names: one row per
 * label rule and its neighbour (`series-node.ts`), then the GPU count a pod may be named by
 * (`attribute-count.ts`, `TooManyGpus`) on both sides of the pod's request.
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/cluster/types.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { attribute } from '../../src/scaling/attribute.js';
import { nodeRefusal, nodesByPodName, seriesNode } from '../../src/scaling/series-node.js';
import { pod, policy } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const VICTIM = pod('victim-0', { nodeName: 'gpu-a' });
const EXPORTERS = [
  pod('dcgm-a', { namespace: 'gpu-operator', nodeName: 'gpu-a', managed: false, algorithm: null }),
  pod('dcgm-b', { namespace: 'gpu-operator', nodeName: 'gpu-b', managed: false, algorithm: null }),
  // The same pod name in two namespaces, on two nodes.
  pod('twin', { namespace: 'ns-1', nodeName: 'gpu-a', managed: false, algorithm: null }),
  pod('twin', { namespace: 'ns-2', nodeName: 'gpu-c', managed: false, algorithm: null }),
];
// Built in each test: the index is built on first use, and StrykerJS counts as covering it only the
// test that built it.
const byNameOf = () => nodesByPodName([VICTIM, ...EXPORTERS]);

describe('seriesNode: the node a series names, and by which label', () => {
  it.each<[string, Record<string, string>, ReturnType<typeof seriesNode>]>([
    ['Node', { node: 'gpu-b', Hostname: 'gpu-a' }, { node: 'gpu-b', from: 'node' }],
    ['Hostname', { Hostname: 'gpu-a' }, { node: 'gpu-a', from: 'Hostname' }],
    ['ExporterPodOnThePodsNode', { Hostname: 'dcgm-a' }, { node: 'gpu-a', from: 'Hostname (exporter pod)' }],
    ['ExporterPod', { Hostname: 'dcgm-b' }, { node: 'gpu-b', from: 'Hostname (exporter pod)' }],
    ['FileName', { gpuops_node_hint: 'gpu-b' }, { node: 'gpu-b', from: 'file name' }],
    ['None', { Hostname: 'gpu-z' }, null],
  ])('%s', (_name, labels, want) => {
    expect(seriesNode(labels, 'gpu-a', byNameOf())).toEqual(want);
  });
});

describe('nodeRefusal', () => {
  it.each<[string, Record<string, string>, PodInfo, string | null]>([
    ['NodeLabelOfThePodsNodeCounts', { node: 'gpu-a', Hostname: 'dcgm-b' }, VICTIM, null],
    ['NodeLabelWinsOverAHostnameThatAgrees', { node: 'gpu-b', Hostname: 'gpu-a' }, VICTIM, 'WrongNode'],
    ['HostnameThatIsThePodsNodeCounts', { Hostname: 'gpu-a' }, VICTIM, null],
    ['HostnameThatIsTheExporterPodOnThePodsNodeCounts', { Hostname: 'dcgm-a' }, VICTIM, null],
    ['HostnameThatIsAnExporterPodOnAnotherNode', { Hostname: 'dcgm-b' }, VICTIM, 'WrongNode'],
    ['HostnameOfTwoPodsOneOnThePodsNodeCounts', { Hostname: 'twin' }, VICTIM, null],
    ['HostnameThatNamesNothingKnown', { Hostname: 'gpu-z' }, VICTIM, 'UnknownNode'],
    ['NeitherNodeNorHostname', { UUID: 'GPU-1' }, VICTIM, 'UnknownNode'],
    ['EmptyNodeLabelIsNoNodeLabel', { node: '', Hostname: 'gpu-a' }, VICTIM, null],
    ['FileNameHintWhenTheLabelsTellNothing', { Hostname: 'gpu-z', gpuops_node_hint: 'gpu-a' }, VICTIM, null],
    ['FileNameHintOfAnotherNode', { Hostname: 'gpu-z', gpuops_node_hint: 'gpu-b' }, VICTIM, 'WrongNode'],
    [
      'FileNameHintNeverOverridesTheHostname',
      { Hostname: 'dcgm-b', gpuops_node_hint: 'gpu-a' },
      VICTIM,
      'WrongNode',
    ],
    ['PodNotBoundYetHasNoGpu', { node: 'gpu-a' }, pod('victim-0', { nodeName: null }), 'WrongNode'],
  ])('%s', (_name, labels, p, want) => {
    expect(nodeRefusal(labels, p, byNameOf())?.reason ?? null).toBe(want);
  });

  it.each<[string, Record<string, string>, PodInfo, string]>([
    [
      'ByNode',
      { node: 'gpu-b' },
      VICTIM,
      'series comes from node gpu-b (by its node label) but the pod runs on node gpu-a',
    ],
    [
      'ByExporterPod',
      { Hostname: 'dcgm-b' },
      VICTIM,
      'series comes from node gpu-b (by its Hostname (exporter pod) label) but the pod runs on node gpu-a',
    ],
    [
      'ByFileName',
      { gpuops_node_hint: 'gpu-b' },
      VICTIM,
      'series comes from node gpu-b (by its file name label) but the pod runs on node gpu-a',
    ],
    [
      'NeitherLabel',
      {},
      VICTIM,
      'series has neither a node nor a Hostname label, so it cannot be checked against node gpu-a where the pod runs',
    ],
    [
      'EmptyHostname',
      { Hostname: '' },
      VICTIM,
      'series has neither a node nor a Hostname label, so it cannot be checked against node gpu-a where the pod runs',
    ],
    [
      'UnknownHostname',
      { Hostname: 'gpu-z' },
      VICTIM,
      'series\' Hostname "gpu-z" names neither node gpu-a where the pod runs nor a pod of the snapshot',
    ],
    [
      'NotBound',
      { node: 'gpu-a' },
      pod('victim-0', { nodeName: null }),
      'pod is not bound to a node, so no GPU is its',
    ],
  ])('says where the series comes from and where the pod runs: %s', (_name, labels, p, want) => {
    expect(nodeRefusal(labels, p, byNameOf())?.message ?? '').toBe(want);
  });

  it("a Hostname naming pods on several nodes: the pod's node when one is, else the first by name", () => {
    const pods = [
      pod('twin', { namespace: 'ns-2', nodeName: 'gpu-c', managed: false, algorithm: null }),
      pod('twin', { namespace: 'ns-1', nodeName: 'gpu-b', managed: false, algorithm: null }),
      pod('unbound', {
        namespace: 'ns-1',
        nodeName: null,
        phase: 'Pending',
        managed: false,
        algorithm: null,
      }),
    ];
    const byName = nodesByPodName(pods);
    const on = (nodeName: string) => pod('victim-0', { nodeName });
    expect(nodeRefusal({ Hostname: 'twin' }, on('gpu-c'), byName)).toBeNull();
    expect(nodeRefusal({ Hostname: 'twin' }, on('gpu-a'), byName)?.message).toBe(
      'series comes from node gpu-b (by its Hostname (exporter pod) label) but the pod runs on node gpu-a',
    );
    // A pod not bound to a node stands for none.
    expect(nodeRefusal({ Hostname: 'unbound' }, on('gpu-a'), byName)?.reason).toBe('UnknownNode');
  });
});

const series = (uuid: string, podName: string, value: number): GpuSeries => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  labels: { UUID: uuid, gpu: '0', node: 'gpu-a', namespace: 'algorithms', pod: podName },
  value,
  timestamp: NOW.getTime(),
});

describe('a pod counts only as many GPUs as it requests', () => {
  it.each<[string, number, string[], number | null]>([
    ['OneGpuOfOneRequested', 1, ['G0'], 40],
    ['TwoGpusOfOneRequestedNeitherCounts', 1, ['G0', 'G1'], null],
    ['TwoGpusOfTwoRequested', 2, ['G0', 'G1'], 50],
    ['ThreeGpusOfTwoRequestedNoneCounts', 2, ['G0', 'G1', 'G2'], null],
    ['OneGpuOfTwoRequestedCounts', 2, ['G0'], 40],
    ['NoGpuRequestedNothingCounts', 0, ['G0'], null],
  ])('%s', (_name, request, gpus, want) => {
    const p = pod('victim-0', { nodeName: 'gpu-a', gpuRequest: request, algorithm: 'victim' });
    const a = attribute(
      gpus.map((g, i) => series(g, 'victim-0', 40 + 20 * i)),
      [p],
      policy(),
      NOW,
    );
    const samples = a.byAlgorithm.get('victim')?.samples ?? [];
    expect(samples[0]?.utilization ?? null).toBe(want);
    if (want === null) {
      expect(a.dropped.map((d) => d.reason)).toEqual(gpus.map(() => 'TooManyGpus'));
      expect(a.dropped[0]!.message).toBe(
        `pod algorithms/victim-0 requests ${request} GPU(s) but ${gpus.length} GPUs name it (${gpus.join(', ')}); none counts`,
      );
    }
  });
});
