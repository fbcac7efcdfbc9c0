/**
 * `fetch` against the simulated cluster as its kubeconfig's admin: the path on `sim.url` (plain
 * HTTP), with `Authorization: Bearer <sim.token>` added to the headers given.
 */
import type { SimCluster } from '../../src/sim/index.js';

/** Fetches `path` (e.g. `/api/v1/nodes`) from `sim` with its admin token. */
export function simFetch(sim: Pick<SimCluster, 'url' | 'token'>, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${sim.token}`);
  return fetch(`${sim.url}${path}`, { ...init, headers });
}
