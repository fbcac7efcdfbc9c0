/**
 * Every `gpuops sim --nodes FILE --pods FILE` the docs show loads without a warning: the dumps are
 * what `kubectl get … -o json` returns, where two pods never share a namespace and name. A dump
 * that does repeat a name still loads every pod, the repeat renamed and said so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSimCluster } from '../../src/sim/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `[doc, nodes, pods]` of every `gpuops sim` command line in README.md and docs/*.md. */
function simCommands(): [string, string, string][] {
  const docs = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith('.md'),
  );
  const out: [string, string, string][] = [];
  for (const doc of docs) {
    const text = readFileSync(path.join(ROOT, doc), 'utf8').replace(/\\\n\s*/g, ' ');
    for (const line of text.split('\n')) {
      if (!/gpuops sim\b/.test(line)) continue;
      const nodes = /--nodes (\S+)/.exec(line)?.[1];
      const pods = /--pods (\S+)/.exec(line)?.[1];
      if (nodes && pods) out.push([doc, nodes, pods]);
    }
  }
  return out;
}

const read = (file: string): unknown => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('the docs’ gpuops sim fixtures', () => {
  const commands = simCommands();

  it('the docs show some', () => {
    expect(commands.length).toBeGreaterThan(0);
  });

  it.each(commands)(
    '%s: gpuops sim --nodes %s --pods %s loads with no warning',
    async (_doc, nodes, pods) => {
      const sim = await startSimCluster({ nodes: read(nodes), pods: read(pods) });
      try {
        expect(sim.loadErrors).toEqual([]);
      } finally {
        await sim.close();
      }
    },
  );

  it('a dump that repeats a pod name keeps both pods, the repeat renamed and said so', async () => {
    const pod = (node: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'exporter-0001', namespace: 'gpu-operator' },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'x' }] },
    });
    const sim = await startSimCluster({
      nodes: read('test/fixtures/cluster-mixed/nodes.json'),
      pods: { kind: 'List', items: [pod('gpu-a100-01'), pod('gpu-h100-01')] },
    });
    try {
      expect(sim.loadErrors).toHaveLength(1);
      expect(sim.loadErrors[0]).toMatch(
        /items\[1\] \(exporter-0001\): duplicate name in namespace "gpu-operator"; loaded as "exporter-0001-2"/,
      );
    } finally {
      await sim.close();
    }
  });
});
