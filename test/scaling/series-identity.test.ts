import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/cluster/types.js';
import { parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { attribute, type DeploymentOf } from '../../src/scaling/attribute.js';
import { podIndexOf } from '../../src/scaling/lookups.js';
import { createSeriesMemo, type SeriesMemo } from '../../src/scaling/series-identity.js';
import { fixturePods, policy } from './support.js';

// The series identities kept between passes (`AttributeOptions.memo`): an attribution read with the
// memo equals the one read afresh, on a hit and on each kind of miss.

const dir = new URL('../fixtures/cluster-mixed/', import.meta.url);
const SCRAPED = Date.parse('2025-06-01T12:00:00Z');
const NOW = new Date(SCRAPED + 30_000);
const POLICY = policy();

/** The three pages of the fixture as Prometheus stores them (exporter pod renamed). */
function answer(): GpuSeries[] {
  return ['gpu-a100-01', 'gpu-a100-03', 'gpu-t4-02'].flatMap((node) =>
    parseDcgmPage(readFileSync(new URL(`dcgm/${node}.prom`, dir), 'utf8'), {
      source: `dcgm/${node}.prom`,
      scrapedAtMs: SCRAPED,
      node,
    }),
  );
}

const managed = (): PodInfo[] =>
  fixturePods({ 'llm-finetune-0': 'llm-finetune', 'video-decode': 'video-decode' });

/** The same series (the same label objects), every value moved by `by` points. */
const moved = (series: readonly GpuSeries[], by: number): GpuSeries[] =>
  series.map((s) => ({ ...s, value: Math.min(100, s.value + by) }));

/** A copy of `s` whose labels are a new object, with `patch` applied. */
const relabelled = (s: GpuSeries, patch: Record<string, string>): GpuSeries => ({
  ...s,
  labels: { ...s.labels, ...patch },
});

interface Row {
  name: string;
  /** The next answer, from the one the memo read. */
  next: (last: GpuSeries[]) => GpuSeries[];
  /** The next pass's pods (default: the same array, so the same index). */
  pods?: (last: PodInfo[]) => PodInfo[];
}

const podName = (s: GpuSeries) => s.labels.pod ?? '';
/** The place of the first series of the policy's metric naming a pod that starts with `prefix`. */
const firstOf = (series: GpuSeries[], prefix: string) => {
  const i = series.findIndex((s) => s.metric === POLICY.spec.scaling.metric && podName(s).startsWith(prefix));
  if (i < 0) throw new Error(`no series names ${prefix}`);
  return i;
};

const rows: Row[] = [
  { name: 'a hit: the same label objects in the same places, values moved', next: (l) => moved(l, 0.3) },
  {
    name: 'a new label object in a place, naming another pod (the same place, other labels)',
    next: (l) => {
      const out = moved(l, 0.3);
      const i = firstOf(out, 'video-decode');
      out[i] = relabelled(out[i]!, { pod: 'llm-finetune-0', namespace: 'research' });
      return out;
    },
  },
  {
    name: 'a new label object in a place, naming another GPU',
    next: (l) => {
      const out = moved(l, 0.3);
      const i = firstOf(out, 'llm-finetune');
      out[i] = relabelled(out[i]!, { UUID: 'GPU-elsewhere' });
      return out;
    },
  },
  { name: 'the series in reverse order', next: (l) => moved(l, 0.3).reverse() },
  { name: 'the first series gone (every other one a place earlier)', next: (l) => moved(l, 0.3).slice(1) },
  {
    name: 'a series more at the front',
    next: (l) => [relabelled(l[0]!, { UUID: 'GPU-new', pod: 'video-decode-5c9d7-2xq8w' }), ...moved(l, 0.3)],
  },
  {
    name: 'a pod gone from the snapshot (a new pod index)',
    next: (l) => moved(l, 0.3),
    pods: (p) => p.filter((x) => !x.name.startsWith('video-decode')),
  },
  {
    name: 'a pod of the same name no longer Ready (a new pod index)',
    next: (l) => moved(l, 0.3),
    pods: (p) => p.map((x) => (x.name.startsWith('llm-finetune') ? { ...x, ready: false } : x)),
  },
  {
    name: 'the same pods in a new index object',
    next: (l) => moved(l, 0.3),
    pods: (p) => [...p],
  },
];

describe('series identities kept between passes', () => {
  for (const row of rows) {
    it(`${row.name}: equal to the attribution read afresh`, () => {
      const pods = managed();
      const first = answer();
      const memo: SeriesMemo = createSeriesMemo();
      const index = podIndexOf(pods);
      const primed = attribute(first, pods, POLICY, NOW, undefined, index, { memo });
      expect(primed).toEqual(attribute(first, pods, POLICY, NOW, undefined, index));
      expect(memo.last).toHaveLength(first.length);

      const series = row.next(first);
      const nextPods = row.pods ? row.pods(pods) : pods;
      const nextIndex = nextPods === pods ? index : podIndexOf(nextPods);
      const kept = attribute(series, nextPods, POLICY, NOW, undefined, nextIndex, { memo });
      const fresh = attribute(series, nextPods, POLICY, NOW, undefined, podIndexOf(nextPods));
      expect(kept).toEqual(fresh);
      expect(memo.last).toHaveLength(series.length);
      // and the pass after it, with nothing moved but the values
      const after = moved(series, -0.2);
      expect(attribute(after, nextPods, POLICY, NOW, undefined, nextIndex, { memo })).toEqual(
        attribute(after, nextPods, POLICY, NOW, undefined, podIndexOf(nextPods)),
      );
    });
  }

  // `deploymentKey` stands for `deploymentOf`: a pod's refusal is kept while the key and the pod
  // object are the same, and judged again when either changes.
  const ownAlgorithm: DeploymentOf = (p) => p.algorithm;
  const shadowVideo: DeploymentOf = (p) => (p.name.startsWith('video-decode') ? null : p.algorithm);
  const ownerRows: {
    name: string;
    next: DeploymentOf;
    sameKey: boolean;
    pods?: (p: PodInfo[]) => PodInfo[];
  }[] = [
    { name: 'the same owners under the same key', next: ownAlgorithm, sameKey: true },
    { name: 'other owners (no Deployment owns a pod) under a new key', next: shadowVideo, sameKey: false },
    {
      name: 'a pod object replaced by one that is terminating, under the same key',
      next: ownAlgorithm,
      sameKey: true,
      pods: (p) => p.map((x) => (x.name.startsWith('video-decode') ? { ...x, terminating: true } : x)),
    },
  ];
  for (const row of ownerRows) {
    it(`owners: ${row.name}: equal to the attribution judged afresh`, () => {
      const pods = managed();
      const memo = createSeriesMemo();
      const key = {};
      const first = answer();
      attribute(first, pods, POLICY, NOW, ownAlgorithm, podIndexOf(pods), { memo, deploymentKey: key });
      const nextPods = row.pods ? row.pods(pods) : pods;
      const series = moved(first, 0.3);
      const kept = attribute(series, nextPods, POLICY, NOW, row.next, podIndexOf(nextPods), {
        memo,
        deploymentKey: row.sameKey ? key : {},
      });
      const fresh = attribute(series, nextPods, POLICY, NOW, row.next, podIndexOf(nextPods));
      expect(kept).toEqual(fresh);
      expect(fresh.byAlgorithm.has('video-decode')).toBe(row.next === ownAlgorithm && !row.pods);
    });
  }

  it('the rows attribute something: samples for both algorithms, and the changes show', () => {
    const pods = managed();
    const series = answer();
    const a = attribute(series, pods, POLICY, NOW, undefined, podIndexOf(pods));
    expect([...a.byAlgorithm.keys()].sort()).toEqual(['llm-finetune', 'video-decode']);
    const gone = pods.filter((x) => !x.name.startsWith('video-decode'));
    const b = attribute(series, gone, POLICY, NOW, undefined, podIndexOf(gone));
    expect(b.dropped.map((d) => d.reason)).toContain('UnknownPod');
  });
});
