/** The status views: the model read from the store, and its HTML, SVG and text pages. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { cacheHealthCauses } from './cache-health.js';
export { fleetStatusRecord } from './fleet-record.js';
export { ago, plural } from './health.js';
export type { HealthCause } from './health.js';
export { renderStatusHtml } from './html.js';
export { loadStatusView } from './load.js';
export { renderStatusText } from './text.js';
export type { StatusView } from './view-types.js';
