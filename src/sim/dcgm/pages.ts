/**
 * The exporter page of each simulated GPU node at the clock's now, rendered on demand: what
 * `GET /dcgm/<node>/metrics` answers (`route.ts`) and what {@link inProcessDcgmFetch} hands a
 * reader in the same process without a socket (the replay's engines, `replay/sim-engine.ts`).
 */
import type { LoadModel } from '../load-model.js';
import type { SimClock, SimStore } from '../types.js';
import { nodeGpuCount } from '../controllers/kubelet.js';
import { readAll, readOne } from '../controllers/read.js';
import { dcgmGpus } from './page.js';
import { formatExporterPage } from './amd-page.js';

/** Where the pages read the cluster state; undefined while the cluster is starting. */
export type ClusterSource = () => { store: SimStore; clock: Pick<SimClock, 'now'> } | undefined;

/** The page's `Content-Type`, as dcgm-exporter sends it. */
export const PAGE_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** `/dcgm/<node>/metrics`: the path of a node's page; group 1 is the node's name, URI-encoded. */
export const PAGE_PATH = /^\/dcgm\/([^/]+)\/metrics$/;

/** The pages of one simulated cluster (see the module comment). */
export class DcgmPages {
  /** One utilisation map per store version, load version and simulated second. */
  private cache: { key: string; utilization: Map<string, number> } | undefined;

  constructor(
    private readonly cluster: ClusterSource,
    private readonly load: LoadModel,
  ) {}

  /**
   * The page of node `name` now: `starting` while the cluster is starting, undefined for an
   * unknown node or a node without GPUs, else the page's text (dcgm-exporter's, or AMD's
   * exporter's for a node of AMD GPUs).
   */
  page(name: string): string | 'starting' | undefined {
    const c = this.cluster();
    if (!c) return 'starting';
    const node = readOne(c.store, 'nodes', undefined, name);
    if (!node || nodeGpuCount(node) === 0) return undefined;
    const now = c.clock.now();
    const pods = readAll(c.store, 'pods');
    // A Prometheus scraping every node's page in a round computes the utilisation once, not once per node.
    const key = `${c.store.resourceVersion()}/${this.load.version()}@${Math.floor(now.getTime() / 1000)}`;
    if (this.cache?.key !== key) this.cache = { key, utilization: this.load.podUtilization(pods, now) };
    return formatExporterPage(node, dcgmGpus(node, pods, this.load, now, this.cache.utilization));
  }
}

/**
 * A `fetch` that answers `GET <any origin>/dcgm/<node>/metrics` from `pages` in this process —
 * the same text, status and `Content-Type` the HTTP route sends, without a socket or HTTP
 * framing — for a reader that shares the simulator's process (the replay's engines). Any other
 * path is a 404, as is an unknown node; a starting cluster is a 503. Never rejects.
 */
export function inProcessDcgmFetch(pages: DcgmPages): typeof fetch {
  return async (input) => {
    const href = input instanceof Request ? input.url : String(input);
    const path = new URL(href).pathname;
    const m = PAGE_PATH.exec(path);
    const page = m ? pages.page(decodeURIComponent(m[1]!)) : undefined;
    if (page === 'starting') return text(503, 'simulated cluster is starting\n');
    if (page === undefined) return text(404, `no dcgm-exporter at ${path}\n`);
    return new Response(page, { status: 200, headers: { 'Content-Type': PAGE_CONTENT_TYPE } });
  };
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}
