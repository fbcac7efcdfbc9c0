import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { Harness, gpuNode, gpuPodSpec } from '../../../test/sim-behaviour/harness.js';
import { defaultControllers } from '../controllers/index.js';
import { LoadModel } from '../load-model.js';
import type { KubeObject } from '../types.js';
import { gpuUuid, renderDcgmPage } from './page.js';

const T0 = '2026-12-01T10:00:00Z';
const FIXTURE = new URL('../../../test/fixtures/cluster-mixed/dcgm/gpu-a100-01.prom', import.meta.url);

function node(): KubeObject {
  const n = gpuNode('gpu-a100-07', 4, {
    'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
    'nvidia.com/gpu.memory': '81920',
    'nvidia.com/cuda.driver.major': '550',
    'nvidia.com/cuda.driver.minor': '127',
    'nvidia.com/cuda.driver.rev': '05',
  });
  return n;
}

function setup(): Harness {
  const h = new Harness(defaultControllers({ garbageCollection: true }), T0);
  h.apply('nodes', node());
  h.apply('pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'nvidia-dcgm-exporter-x2k9p',
      namespace: 'gpu-operator',
      labels: { app: 'nvidia-dcgm-exporter' },
    },
    spec: {
      nodeName: 'gpu-a100-07',
      containers: [{ name: 'exporter' }],
      tolerations: [{ operator: 'Exists' }],
    },
  });
  h.apply('pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'foreign-0', namespace: 'research' },
    spec: {
      ...gpuPodSpec(1),
      containers: [
        { name: 'sidecar' },
        { name: 'trainer', resources: { limits: { 'nvidia.com/gpu': '1' } } },
      ],
    },
  });
  h.apply('deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'infer', namespace: 'algorithms' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'infer' } },
      template: {
        metadata: { labels: { app: 'infer', 'gpuops.dev/algorithm': 'infer' } },
        spec: gpuPodSpec(1),
      },
    },
  });
  return h;
}

type Row = { gpu: string; pod: string; container: string; util: number; ratio: number };

function parse(text: string): Row[] {
  const families = parsePrometheusTextFormat(text);
  const util = families.find((f) => f.name === 'DCGM_FI_DEV_GPU_UTIL')!;
  const ratio = families.find((f) => f.name === 'DCGM_FI_PROF_GR_ENGINE_ACTIVE')!;
  return util.metrics.map((m, i) => ({
    gpu: m.labels!.gpu!,
    pod: m.labels!.pod!,
    container: m.labels!.container!,
    util: Number(m.value),
    ratio: Number(ratio.metrics[i]!.value),
  }));
}

describe('dcgm-exporter page', () => {
  it('reports the load model per GPU: the load spread over the algorithm, a fixed figure for foreign pods, 0 for free GPUs', () => {
    const load = new LoadModel({ foreignUtilizationPercent: 70 });
    load.setLoad('infer', 130);
    const h = setup();
    const page = renderDcgmPage(
      h.store.get('nodes', undefined, 'gpu-a100-07')!,
      h.store.list('pods'),
      load,
      h.now(),
    );
    const rows = parse(page);
    expect(rows.map((r) => r.gpu)).toEqual(['0', '1', '2', '3']);
    const byPod = (prefix: string) => rows.filter((r) => r.pod.startsWith(prefix));
    expect(byPod('foreign-0')).toEqual([
      { gpu: '0', pod: 'foreign-0', container: 'trainer', util: 70, ratio: 0.7 },
    ]);
    expect(byPod('infer-').map((r) => [r.util, r.ratio])).toEqual([
      [65, 0.65],
      [65, 0.65],
    ]);
    expect(rows.filter((r) => r.pod === '')).toEqual([
      { gpu: '3', pod: '', container: '', util: 0, ratio: 0 },
    ]);
    expect(page).toContain('Hostname="nvidia-dcgm-exporter-x2k9p"');
    expect(page).toContain('modelName="NVIDIA A100-SXM4-80GB"');
    expect(page).toContain('DCGM_FI_DRIVER_VERSION="550.127.05"');

    // one more replica: the same load over three GPUs; an overload is capped at 100 %
    const d = h.store.get('deployments', 'algorithms', 'infer')!;
    d.spec.replicas = 3;
    h.store.update('deployments', d);
    h.settle();
    const three = parse(
      renderDcgmPage(h.store.get('nodes', undefined, 'gpu-a100-07')!, h.store.list('pods'), load, h.now()),
    );
    expect(three.filter((r) => r.pod.startsWith('infer-')).map((r) => r.ratio)).toEqual([
      0.433333, 0.433333, 0.433333,
    ]);
    expect(three.filter((r) => r.pod.startsWith('infer-')).map((r) => r.util)).toEqual([43, 43, 43]);
    load.setLoad('infer', 900);
    const over = parse(
      renderDcgmPage(h.store.get('nodes', undefined, 'gpu-a100-07')!, h.store.list('pods'), load, h.now()),
    );
    expect(over.filter((r) => r.pod.startsWith('infer-')).map((r) => r.util)).toEqual([100, 100, 100]);
  });

  it('keeps a pod on its GPU when an earlier pod goes away (device plugin assignment is recorded)', () => {
    const load = new LoadModel();
    const h = setup();
    const before = parse(
      renderDcgmPage(h.store.get('nodes', undefined, 'gpu-a100-07')!, h.store.list('pods'), load, h.now()),
    );
    h.store.delete('pods', 'research', 'foreign-0');
    h.settle();
    const after = parse(
      renderDcgmPage(h.store.get('nodes', undefined, 'gpu-a100-07')!, h.store.list('pods'), load, h.now()),
    );
    for (const r of after.filter((x) => x.pod !== ''))
      expect(before.find((b) => b.pod === r.pod)?.gpu).toBe(r.gpu);
    expect(after.find((r) => r.gpu === '0')!.pod).toBe('');
  });

  it('follows a load schedule over simulated time', () => {
    const load = new LoadModel();
    const h = setup();
    load.setSchedule('infer', [
      { at: '2026-12-01T10:05:00Z', load: 180 },
      { at: '2026-12-01T10:10:00Z', load: 20 },
    ]);
    const utilAt = (iso: string) =>
      parse(
        renderDcgmPage(
          h.store.get('nodes', undefined, 'gpu-a100-07')!,
          h.store.list('pods'),
          load,
          new Date(iso),
        ),
      )
        .filter((r) => r.pod.startsWith('infer-'))
        .map((r) => r.util);
    expect(utilAt('2026-12-01T10:04:59Z')).toEqual([0, 0]);
    expect(utilAt('2026-12-01T10:05:00Z')).toEqual([90, 90]);
    expect(utilAt('2026-12-01T10:30:00Z')).toEqual([10, 10]);
  });

  it('has the fields, HELP texts and label names of the fixture, in the same order', () => {
    const fixture = readFileSync(FIXTURE, 'utf8');
    const load = new LoadModel();
    const h = setup();
    const page = renderDcgmPage(
      h.store.get('nodes', undefined, 'gpu-a100-07')!,
      h.store.list('pods'),
      load,
      h.now(),
    );
    const comments = (t: string) => t.split('\n').filter((l) => l.startsWith('#'));
    // The fixture's fields, and DCGM_FI_DEV_FB_FREE after FB_USED (the gpuMemory signal reads both).
    const expected = comments(fixture);
    const at = expected.indexOf('# TYPE DCGM_FI_DEV_FB_USED gauge') + 1;
    expected.splice(
      at,
      0,
      '# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).',
      '# TYPE DCGM_FI_DEV_FB_FREE gauge',
    );
    expect(comments(page)).toEqual(expected);
    const labelNames = (t: string) => [
      ...new Set(
        t
          .split('\n')
          .filter((l) => l && !l.startsWith('#'))
          .map((l) => [...l.matchAll(/([A-Za-z_]+)="/g)].map((m) => m[1]).join(',')),
      ),
    ];
    expect(labelNames(page)).toEqual(labelNames(fixture));
    expect(page.endsWith('\n')).toBe(true);
    expect(page).toMatch(/^DCGM_FI_PROF_GR_ENGINE_ACTIVE\{.*\} 0\.000000$/m);
  });
});

describe('gpuUuid', () => {
  it('is the UUID earlier builds gave (a scrape after an upgrade names the same GPUs), asked once or again', () => {
    // Values of f5b065d's gpuUuid, before the memo moved to boundedMemo.
    const known: [string, number, string][] = [
      ['gpu-t4-02', 0, 'GPU-8a71c8c4-8b71-ca57-8c71-cbea8d71cd7d'],
      ['gpu-t4-02', 3, 'GPU-64ab0359-63ab-01c6-62ab-003361aafea0'],
      ['ip-10-0-1-7.ec2.internal', 1, 'GPU-677c2c2e-687c-2dc1-657c-2908667c2a9b'],
    ];
    for (let round = 0; round < 2; round++)
      for (const [node, index, uuid] of known) expect(gpuUuid(node, index)).toBe(uuid);
  });
});
