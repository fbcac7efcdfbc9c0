/**
 * The replay's engines read their simulator's dcgm-exporter pages in-process
 * (`inProcessDcgmFetch`, `src/sim/dcgm/pages.ts`): the same status, `Content-Type` and page text as
 * the HTTP route serves, node by node on the cluster-mixed fixture (pods holding GPUs, foreign
 * load), so a pass parses the same bytes either way; and the same answers for what is not a page.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DcgmScrapeSource } from '../../src/metrics/index.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { DcgmPages, inProcessDcgmFetch } from '../../src/sim/dcgm/pages.js';
import { dcgmRoute } from '../../src/sim/dcgm/route.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { LoadModel } from '../../src/sim/load-model.js';

const fixture = (f: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));

let sim: SimCluster | undefined;
const load = new LoadModel({ foreignUtilizationPercent: 70 });
const pages = new DcgmPages(() => sim, load);
const inProcess = inProcessDcgmFetch(pages);
const nodeNames = (fixture('nodes.json') as { items: { metadata: { name: string } }[] }).items.map(
  (n) => n.metadata.name,
);

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: fixture('nodes.json'),
    pods: fixture('pods.json'),
    controllers: defaultControllers({ loadModel: load }),
    routes: [dcgmRoute(() => sim, load, pages)],
    speed: 1e-6,
  });
});

afterAll(async () => {
  await sim?.close();
});

/** Status, content type and body of one answer. */
async function answer(r: Response): Promise<{ status: number; type: string | null; body: string }> {
  return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
}

describe('the dcgm-exporter pages in-process', () => {
  it('answers every node as the HTTP route does: same status, content type and page text', async () => {
    let served = 0;
    for (const name of [...nodeNames, 'no-such-node']) {
      const url = `${sim!.url}/dcgm/${encodeURIComponent(name)}/metrics`;
      const overHttp = await answer(await fetch(url));
      const direct = await answer(await inProcess(url));
      expect(direct, name).toEqual(overHttp);
      if (overHttp.status === 200) {
        served++;
        expect(direct.body).toContain(`DCGM_FI_DEV_GPU_UTIL{gpu="0"`);
      }
    }
    // The fixture's GPU nodes have pages, its CPU nodes and the unknown name do not.
    expect(served).toBeGreaterThanOrEqual(9);
    expect(served).toBeLessThan(nodeNames.length);
  });

  it('gives DcgmScrapeSource the same reading as the pages over HTTP', async () => {
    const targets = nodeNames.map((node) => ({ url: `${sim!.url}/dcgm/${node}/metrics`, node }));
    const now = () => sim!.clock.now();
    const query = { metric: 'DCGM_FI_DEV_GPU_UTIL' as const, windowSeconds: 60 };
    const overHttp = await new DcgmScrapeSource({ targets, now }).read(query);
    const direct = await new DcgmScrapeSource({ targets, now, fetch: inProcess }).read(query);
    expect(overHttp.ok).toBe(true);
    expect(direct).toEqual(overHttp);
  });

  it('answers 404 for a path that is not a node page, and 503 while the cluster is starting', async () => {
    expect((await inProcess(`${sim!.url}/dcgm/targets`)).status).toBe(404);
    expect((await inProcess(`${sim!.url}/metrics`)).status).toBe(404);
    const starting = inProcessDcgmFetch(new DcgmPages(() => undefined, load));
    const r = await starting(`${sim!.url}/dcgm/gpu-t4-01/metrics`);
    expect(r.status).toBe(503);
    expect(await r.text()).toBe('simulated cluster is starting\n');
  });
});
