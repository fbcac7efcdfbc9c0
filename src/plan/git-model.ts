/**
 * The read model of Git for one pass (pure): what the base branch holds under
 * `clusters/<cluster>/`, each generated file parsed once. Every step of the plan reads this
 * instead of parsing `base` again.
 */
import { parse } from 'yaml';
import { movedNodes, nodesDir, affinityProducts, workloadDir } from '../manifests/index.js';
import { POOLS, type Pool } from '../definitions/types.js';

/** What the base branch holds of one algorithm's Deployment. */
export interface GitDeployment {
  /** `clusters/<cluster>/algorithms/<name>/deployment.yaml` */
  path: string;
  /** The file as Git holds it (a scale change edits only its `spec.replicas`). */
  text: string;
  /** `spec.replicas`; null when absent or not a number (e.g. an HPA owns it). */
  replicas: number | null;
  /** The pool of its `nodeSelector` (the policy's label key); null when none or not a pool name. */
  pool: Pool | null;
  /** GPU products of its pod's required node affinity (`nvidia.com/gpu.product In`), sorted; `[]`: any. */
  products: string[];
  /**
   * Its pod template's labels, annotations (string values only) and spec as parsed (what its
   * replicas are made of); absent when it has none.
   */
  template?: { labels: Record<string, string>; annotations: Record<string, string>; spec: unknown };
}

/** The read model; see the module comment. */
export interface GitModel {
  cluster: string;
  /** Files under `clusters/<cluster>/` at the base branch head: repo-relative path → content. */
  files: ReadonlyMap<string, string>;
  /**
   * The pool label of each node manifest (`nodes/<node>.yaml`), by node name; null when the
   * label is absent or not a pool. Git is the desired state: a relabel merged but not yet applied
   * must not be proposed back.
   */
  nodePools: ReadonlyMap<string, Pool | null>;
  /** Nodes gpuops moved into a task pool, by the annotations of their manifests: node → moved-at (ISO-8601). */
  movedNodes: ReadonlyMap<string, string>;
  /** Deployments by algorithm folder name. */
  deployments: ReadonlyMap<string, GitDeployment>;
  /** Folder names under `clusters/<cluster>/algorithms/`, sorted. */
  algorithmFolders: readonly string[];
}

type NodeDoc = {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};
type DeploymentDoc = {
  spec?: {
    replicas?: unknown;
    template?: {
      metadata?: { labels?: unknown; annotations?: unknown };
      spec?: { nodeSelector?: Record<string, string> };
    };
  };
};

/** The entries of a parsed label or annotation map that are strings (a hand-edited file may hold others). */
function stringMap(labels: unknown): Record<string, string> {
  if (labels === null || typeof labels !== 'object') return {};
  return Object.fromEntries(Object.entries(labels).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;
}

const asPool = (v: string | undefined): Pool | null =>
  v !== undefined && (POOLS as readonly string[]).includes(v) ? (v as Pool) : null;

/** Parses a file (null when it is not YAML). */
export function parseGenerated(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return null;
  }
}

/**
 * Builds the read model from the base files, parsing every node manifest and Deployment once.
 * @param labelKey the policy's pool label key (`gpuops.dev/pool`)
 * @param parseFile how a file is parsed: {@link parseGenerated}, or a reconciler's that keeps what it parsed
 */
export function readGitModel(
  cluster: string,
  files: ReadonlyMap<string, string>,
  labelKey: string,
  parseFile: (text: string) => unknown = parseGenerated,
): GitModel {
  const nodesPrefix = `${nodesDir(cluster)}/`;
  const algPrefix = `clusters/${cluster}/algorithms/`;
  const nodePools = new Map<string, Pool | null>();
  const metas: NonNullable<NodeDoc['metadata']>[] = [];
  const deployments = new Map<string, GitDeployment>();
  const folders = new Set<string>();
  for (const [path, text] of files) {
    if (path.startsWith(nodesPrefix)) {
      if (path.endsWith('/kustomization.yaml')) continue;
      const meta = (parseFile(text) as NodeDoc | null)?.metadata;
      if (!meta) continue;
      metas.push(meta);
      if (meta.name) nodePools.set(meta.name, asPool(meta.labels?.[labelKey]));
    } else if (path.startsWith(algPrefix)) {
      const name = path.slice(algPrefix.length).split('/')[0]!;
      folders.add(name);
      if (path !== `${workloadDir(cluster, name)}/deployment.yaml`) continue;
      const doc = parseFile(text) as DeploymentDoc | null;
      const replicas = typeof doc?.spec?.replicas === 'number' ? doc.spec.replicas : null;
      const pool = asPool(doc?.spec?.template?.spec?.nodeSelector?.[labelKey]);
      const products = affinityProducts(doc?.spec?.template?.spec);
      const tpl = doc?.spec?.template;
      const template = tpl
        ? {
            labels: stringMap(tpl.metadata?.labels),
            annotations: stringMap(tpl.metadata?.annotations),
            spec: tpl.spec,
          }
        : undefined;
      deployments.set(name, { path, text, replicas, pool, products, ...(template ? { template } : {}) });
    }
  }
  return {
    cluster,
    files,
    nodePools,
    movedNodes: movedNodes(metas),
    deployments,
    algorithmFolders: [...folders].sort(),
  };
}
