import type { Logger } from 'pino';
import type { Settings } from '../cli/settings.js';
import type { PassSummary } from './loop.js';

/** A reconciler bound to its adapters (cluster, Git, PR host, database, metrics). */
export interface Reconciler {
  /** One level-triggered pass: specs → snapshot → pools → benchmarks → placement → scaling → write-back. */
  pass(): Promise<PassSummary>;
  /** Closes the database and other adapters. */
  close(): Promise<void>;
}

/**
 * Builds the adapters from settings and returns the reconciler. (Being wired by the lead:
 * until then `pass` throws.)
 */
export async function createReconciler(_settings: Settings, _log: Logger): Promise<Reconciler> {
  return {
    async pass() {
      throw new Error('reconcile pass not wired yet');
    },
    async close() {},
  };
}
