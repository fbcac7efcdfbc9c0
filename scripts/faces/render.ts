/**
 * The text of a face (`scripts/faces.ts`): its header comment, a line saying the list is written,
 * then the re-exports grouped by file. Prettier formats it afterwards.
 */
import path from 'node:path';
import type { FaceEntry } from './decide.js';

/** The line after the header; `scripts/faces.ts` drops it when it reads the header back. */
export const WRITTEN_BY =
  '// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).';

/**
 * Header comments of the faces that have none on disk yet: what the folder offers the others. A
 * face's comment on disk wins (edit it there once the face exists).
 */
export const FACE_DOCS: Readonly<Record<string, string>> = {
  util: "/**\n * Small pure helpers (ordering, control characters escaped, a seeded PRNG, secrets in URLs) and\n * the vocabulary: the accelerator vendors' names and gpuops's own label keys.\n */",
  disk: '/** Folders on the local disk: `makeDirs`, a `mkdir -p` that always ends (an adapter: it writes). */',
  retry:
    '/** Retry with exponential backoff and jitter, and `sleep`: the waits of the adapters (git, the hosts, the cluster). */',
  config:
    '/** Settings: the resolved settings of a command (flags, environment, files) and how secrets are read. */',
  cluster:
    '/**\n * The Kubernetes side: the snapshot model (nodes, pods, owners, quantities, taints, MIG), the\n * watch cache and its reflectors, the API clients (Jobs, patches, Leases) and the kubeconfig.\n */',
  metrics:
    '/** Utilisation sources (Prometheus, dcgm-exporter scrapes, a metrics file), the queries they answer and their types. */',
  manifests:
    '/** Pure rendering of what gpuops writes to Git: Deployments, HPAs, Services, Nodes, benchmark Jobs, YAML. */',
  pools:
    '/** Node pools: which nodes are eligible, how they are assigned to pools, capacity, idle nodes returned. */',
  placement: '/** Placement of algorithms on pools: GPU products and the placement decision. */',
  scaling:
    '/** The scaling decision: signals, bands, headroom and fit, node choice, decisions in turn and their records. */',
  benchmark:
    '/** Benchmarks: classifying products, the benchmark Jobs and their runs, measured bands and their summaries. */',
  plan: '/** The pure plan of a pass (`planDesiredState`): from the world to files and change sets, and the reconciler memory. */',
  status: '/** The status views: the model read from the store, and its HTML, SVG and text pages. */',
  'local-cluster':
    '/** The real control plane built from source (kube-apiserver, etcd, KWOK, Flux, Prometheus) for tests and the demo. */',
  pass: '/** One reconcile pass (`reconcileOnce`), its steps, what it reports and the write fence it calls. */',
  controller:
    '/** The runtime that runs passes: the loop, leader election and its write fence, health and metrics. */',
  compose: '/** The composition root: builds the adapters and the running controller from settings. */',
  demo: '/** The demo scenario and its simulated or real backends. */',
  replay: '/** The replay of a serving trace against the method, and its reports. */',
  cli: '/** The `gpuops` command (`bin/gpuops.js` runs `main.ts`); it offers nothing to the other folders. */',
};

const byName = (a: string, b: string): number => {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

/** The face's text: `header`, {@link WRITTEN_BY}, then one `export {…}` and one `export type {…}` per file. */
export function renderFace(header: string, entries: readonly FaceEntry[]): string {
  const lines = [header, WRITTEN_BY];
  const files = [...new Set(entries.map((e) => e.file))].sort();
  for (const file of files) {
    const of = entries.filter((e) => e.file === file);
    const spec = `./${path.posix.relative(`src/${of[0]!.folder}`, file).replace(/\.ts$/, '.js')}`;
    const values = of.filter((e) => !e.typeOnly).map((e) => e.name);
    const types = of.filter((e) => e.typeOnly).map((e) => e.name);
    if (values.length > 0) lines.push(`export { ${values.sort(byName).join(', ')} } from '${spec}';`);
    if (types.length > 0) lines.push(`export type { ${types.sort(byName).join(', ')} } from '${spec}';`);
  }
  if (files.length === 0) lines.push('export {};');
  return `${lines.join('\n')}\n`;
}
