import type { Pool } from '../../definitions/index.js';
import { hold, type Facts, type Verdict } from './facts.js';

/** The pools whose algorithms gpuops scales. */
export const SCALABLE_POOLS: ReadonlySet<Pool> = new Set(['long-task', 'short-task']);

/**
 * Placement first (`hold NotPlaced`): a Deployment in Git that is not pinned to `long-task` or
 * `short-task` (no pool, or `test`/`unused`) is not scaled, since there is no pool to grow and no
 * capacity to count; replicas stay until a placement pins it. Null when it is placed.
 */
export function notPlaced(f: Facts): Verdict | null {
  if (f.pool !== null && SCALABLE_POOLS.has(f.pool)) return null;
  return hold(
    f,
    'NotPlaced',
    `its Deployment in Git is not pinned to long-task or short-task (pool: ${f.pool ?? 'none'}); replicas stay at ${f.from} until a placement pins it`,
  );
}
