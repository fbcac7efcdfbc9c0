/** Retry with exponential backoff and jitter, and `sleep`: the waits of the adapters (git, the hosts, the cluster). */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { backoffDelay, retry, sleep } from './retry.js';
export type { Backoff } from './retry.js';
