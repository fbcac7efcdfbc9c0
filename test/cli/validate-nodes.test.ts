/**
 * Issue 24, bad input "a product no node has": `gpuops validate --nodes FILE` (a `kubectl get nodes
 * -o json` dump) or `--kubeconfig FILE` (the live cluster) makes a product of `spec.gpu.product`
 * that no node carries an error at its list item, with the products the cluster has; exit 1. One
 * bad spec never stops the others, and without either flag the check is off (validate reads no
 * cluster unless asked).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { runMain } from '../support/run-main.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-validate-nodes-'));
let sim: SimCluster | undefined;
afterAll(async () => {
  await sim?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A Node as `kubectl get nodes -o json` lists it, with a GPU product label or none. */
function node(name: string, product: string | null): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: product ? { 'nvidia.com/gpu.product': product } : {} },
    status: {
      allocatable: { cpu: '32', memory: '256Gi', 'nvidia.com/gpu': '8' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

function dump(name: string, nodes: object[]): string {
  const file = path.join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: nodes }));
  return file;
}

function spec(name: string, products: string[] | null): string {
  return [
    '# a test spec',
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  image: registry.example.com/ml/${name}:1.0.0`,
    '  resources: {gpus: 1}',
    ...(products ? ['  gpu:', '    product:', ...products.map((p) => `      - ${p}`)] : []),
  ].join('\n');
}

/** A GitOps repo with one file per spec. */
function repo(name: string, specs: Record<string, string>): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'algorithms'), { recursive: true });
  for (const [file, text] of Object.entries(specs))
    writeFileSync(path.join(dir, 'algorithms', file), `${text}\n`);
  return dir;
}

const A100 = 'NVIDIA-A100-SXM4-80GB';
const H100 = 'NVIDIA-H100-80GB-HBM3';
const T4 = 'Tesla-T4';
let twoProducts: string;
let unlabelled: string;

beforeAll(() => {
  twoProducts = dump('two', [node('gpu-1', A100), node('gpu-2', T4), node('cpu-1', null)]);
  unlabelled = dump('bare', [node('gpu-1', null)]);
});

describe('gpuops validate --nodes', { timeout: 60_000 }, () => {
  it('a product some node carries passes, exit 0', async () => {
    const dir = repo('present', { 'a.yaml': spec('a', [A100]), 'b.yaml': spec('b', [T4, A100]) });
    const r = await runMain('validate', dir, '--nodes', twoProducts);
    expect([r.code, r.out]).toEqual([0, '2 files valid, 2 algorithms\n']);
  });

  it('one of two products absent: an error at that list item, the other specs go on (exit 1)', async () => {
    const dir = repo('one-absent', {
      'a.yaml': spec('a', [A100, H100]),
      'b.yaml': spec('b', [T4]),
      'c.yaml': spec('c', null).replace('gpus: 1', 'gpus: 0'),
    });
    const r = await runMain('validate', dir, '--nodes', twoProducts);
    expect(r.code).toBe(1);
    // Text output names each file from the working directory (here: outside it, so absolute).
    expect(r.out.split('\n')).toEqual([
      `${dir}/algorithms/a.yaml:12:9: spec.gpu.product[1]: no node carries nvidia.com/gpu.product=${H100} (the cluster has ${A100}, ${T4})`,
      expect.stringMatching(new RegExp(`^${dir}/algorithms/c\\.yaml:8:\\d+: spec\\.resources\\.gpus: `)),
      '2 errors in 2 of 3 files; 1 valid algorithm',
      '',
    ]);
    const json = await runMain('validate', dir, '--nodes', twoProducts, '--output', 'json');
    expect(JSON.parse(json.out).errors[0]).toEqual({
      file: 'algorithms/a.yaml',
      line: 12,
      column: 9,
      field: 'spec.gpu.product[1]',
      message: `no node carries nvidia.com/gpu.product=${H100} (the cluster has ${A100}, ${T4})`,
    });
  });

  it('no node carries a product label: every named product is an error, a spec naming none passes', async () => {
    const dir = repo('unlabelled', { 'a.yaml': spec('a', [A100, T4]), 'b.yaml': spec('b', null) });
    const r = await runMain('validate', dir, '--nodes', unlabelled);
    expect(r.code).toBe(1);
    expect(r.out.replaceAll(`${dir}/`, '').split('\n')).toEqual([
      `algorithms/a.yaml:11:9: spec.gpu.product[0]: no node carries nvidia.com/gpu.product=${A100} (the cluster has no product label on any node)`,
      `algorithms/a.yaml:12:9: spec.gpu.product[1]: no node carries nvidia.com/gpu.product=${T4} (the cluster has no product label on any node)`,
      '2 errors in 1 of 2 files; 1 valid algorithm',
      '',
    ]);
  });

  it('is opt-in: without --nodes or --kubeconfig the same repo passes', async () => {
    const dir = repo('opt-in', { 'a.yaml': spec('a', [H100]) });
    expect((await runMain('validate', dir)).code).toBe(0);
    expect((await runMain('validate', dir, '--nodes', twoProducts)).code).toBe(1);
  });

  it('a single file elsewhere is located at its own path', async () => {
    const file = path.join(work, 'lone.yaml');
    writeFileSync(file, `${spec('lone', [T4, H100])}\n`);
    const r = await runMain('validate', file, '--nodes', twoProducts);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `${file}:12:9: spec.gpu.product[1]: no node carries nvidia.com/gpu.product=${H100}`,
    );
  });

  it('a dump that cannot be read, or is no NodeList, is a usage error (exit 2) naming the file', async () => {
    const dir = repo('usage', { 'a.yaml': spec('a', [A100]) });
    const missing = await runMain('validate', dir, '--nodes', path.join(work, 'nope.json'));
    expect([missing.code, missing.out]).toEqual([2, '']);
    expect(missing.err).toContain('nope.json: cannot read');
    const pods = path.join(work, 'pods.json');
    writeFileSync(pods, JSON.stringify({ items: [{ kind: 'Pod', metadata: { name: 'p' } }] }));
    const wrong = await runMain('validate', dir, '--nodes', pods);
    expect([wrong.code, wrong.err]).toEqual([2, expect.stringContaining('expected kind Node, got Pod')]);
  });

  /** The text of a one-node A100 dump as `kubectl get nodes -o json` writes it (indented). */
  const oneNode = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node('gpu-1', A100)] }, null, 2);
  const WARNING = 'W1203 10:00:00.000000 1 warnings.go:70] v1 ComponentStatus is deprecated in v1.19+';
  it.each([
    {
      row: 'empty items (kubectl on the wrong context): no Nodes, exit 2',
      text: '{"apiVersion":"v1","kind":"List","items":[]}',
      err: (f: string) => `${f}: the dump holds no Nodes (is kubectl pointed at the right cluster?)`,
    },
    {
      row: 'kind NodeList with empty items: no Nodes, exit 2',
      text: 'apiVersion: v1\nkind: NodeList\nitems: []\n',
      err: (f: string) => `${f}: the dump holds no Nodes (is kubectl pointed at the right cluster?)`,
    },
    {
      row: 'truncated JSON: the end of the text, JSON message, exit 2',
      text: oneNode.slice(0, oneNode.indexOf('[') + 1),
      err: (f: string) => `${f}:4:13: not valid JSON: Unexpected end of JSON input`,
    },
    {
      row: 'truncated inside a value: the place V8 stopped, exit 2',
      text: oneNode.slice(0, oneNode.indexOf('"metadata"') + 4),
      err: (f: string) => `${f}:8:11: not valid JSON: Unterminated string`,
    },
    {
      row: 'a kubectl warning line on top: the YAML error at line 1 and where the JSON starts, exit 2',
      text: `${WARNING}\n${oneNode}`,
      err: (f: string) =>
        `${f}:1:1: not valid YAML: Implicit keys need to be on a single line (the JSON starts on line 2: remove the lines above it; kubectl writes warnings to stderr, redirect only stdout)`,
    },
    {
      row: 'the neighbour that works: a valid one-node dump, exit 0',
      text: oneNode,
      err: null,
    },
  ])('$row', async ({ row, text, err }) => {
    const name = row.replace(/:.*/, '').replace(/\W+/g, '-');
    const dir = repo(`dump-${name}`, { 'a.yaml': spec('a', [A100]) });
    const file = path.join(work, `${name}.json`);
    writeFileSync(file, text);
    const r = await runMain('validate', dir, '--nodes', file);
    if (err === null) expect([r.code, r.out, r.err]).toEqual([0, '1 file valid, 1 algorithm\n', '']);
    else expect([r.code, r.out, r.err]).toEqual([2, '', `gpuops validate: ${err(file)}\n`]);
  });
});

describe('gpuops validate --kubeconfig', { timeout: 60_000 }, () => {
  it('lists the live cluster read-only: the mixed fleet has A100, H100 and T4 nodes, no Tesla-T5', async () => {
    const fixture = path.join(ROOT, 'test/fixtures/cluster-mixed');
    sim = await startSimCluster({
      nodes: JSON.parse(readFileSync(path.join(fixture, 'nodes.json'), 'utf8')),
      pods: JSON.parse(readFileSync(path.join(fixture, 'pods.json'), 'utf8')),
    });
    const kubeconfig = path.join(work, 'kubeconfig');
    sim.writeKubeconfig(kubeconfig);
    const before = sim.store.list('nodes').map((n) => n.metadata.resourceVersion);
    const dir = repo('live', { 'a.yaml': spec('a', [T4]), 'b.yaml': spec('b', ['Tesla-T5']) });
    const r = await runMain('validate', dir, '--kubeconfig', kubeconfig);
    expect(r.code).toBe(1);
    expect(r.out.replaceAll(`${dir}/`, '')).toMatch(
      /^algorithms\/b\.yaml:11:9: spec\.gpu\.product\[0\]: no node carries nvidia\.com\/gpu\.product=Tesla-T5 \(the cluster has NVIDIA-A100-SXM4-80GB\b.*NVIDIA-H100-80GB-HBM3.*Tesla-T4\)$/m,
    );
    expect(r.out).toContain('1 error in 1 of 2 files; 1 valid algorithm');
    expect(sim.store.list('nodes').map((n) => n.metadata.resourceVersion)).toEqual(before);
  });
});
