/**
 * The simulated kubelet's image pulls (issue 42): a replica on a node that holds its image
 * (pre-staged, as a pre-pull DaemonSet leaves it) starts after the start-up alone; on a node that
 * does not, after the pull too; once pulled, the next replica on that node pulls nothing.
 */
import { describe, expect, it } from 'vitest';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { IMAGE_PULL_ANNOTATION } from '../../src/sim/controllers/image-pull.js';
import type { KubeObject } from '../../src/sim/types.js';
import { gpuNode, gpuPodSpec, Harness } from './harness.js';

const IMAGE = 'registry.example.com/ml/app:1';

function staged(name: string): KubeObject {
  const n = gpuNode(name, 8);
  return { ...n, status: { ...n.status, images: [{ names: [IMAGE], sizeBytes: 1 }] } };
}

function replica(name: string, node: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'algorithms' },
    spec: gpuPodSpec(1, { nodeName: node }),
  };
}

const ready = (h: Harness, name: string): boolean =>
  (h.pod('algorithms', name).status?.conditions as { type: string; status: string }[] | undefined)?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) ?? false;

describe('image pulls: a pre-staged node starts a replica faster', () => {
  it.each<[string, number, boolean, boolean]>([
    // start-up 5 s, pull 40 s: the staged node at 5 s, the cold one at 45 s (one second less: not yet).
    ['AtFiveSeconds', 5, true, false],
    ['AtFortyFour', 44, true, false],
    ['AtFortyFive', 45, true, true],
  ])('%s', (_name, seconds, warm, cold) => {
    const h = new Harness(
      defaultControllers({ startupSeconds: 5, imagePullSeconds: 40, garbageCollection: true }),
    );
    h.apply('nodes', staged('warm'), gpuNode('cold', 8));
    h.apply('pods', replica('on-warm', 'warm'), replica('on-cold', 'cold'));
    h.advance(seconds);
    expect([ready(h, 'on-warm'), ready(h, 'on-cold')]).toEqual([warm, cold]);
    expect(h.pod('algorithms', 'on-cold').metadata.annotations?.[IMAGE_PULL_ANNOTATION]).toBe('40');
  });

  it('once pulled, the node holds the image: the next replica there starts after the start-up alone', () => {
    const h = new Harness(
      defaultControllers({ startupSeconds: 5, imagePullSeconds: 40, garbageCollection: true }),
    );
    h.apply('nodes', gpuNode('cold', 8));
    h.apply('pods', replica('first', 'cold'));
    h.advance(45);
    expect(ready(h, 'first')).toBe(true);
    const images = (h.store.get('nodes', undefined, 'cold')!.status?.images as { names: string[] }[]).flatMap(
      (i) => i.names,
    );
    expect(images).toEqual([IMAGE]);
    h.apply('pods', replica('second', 'cold'));
    h.advance(5);
    expect(ready(h, 'second')).toBe(true);
  });

  it('without a pull time (the default) nothing changes: no annotation, the start-up alone', () => {
    const h = new Harness(defaultControllers({ startupSeconds: 5, garbageCollection: true }));
    h.apply('nodes', gpuNode('cold', 8));
    h.apply('pods', replica('p', 'cold'));
    h.advance(5);
    expect(ready(h, 'p')).toBe(true);
    expect(h.pod('algorithms', 'p').metadata.annotations?.[IMAGE_PULL_ANNOTATION]).toBeUndefined();
  });
});
