/**
 * Conversion between gpuops records and table rows, shared by both stores, by table group: the
 * cells and codecs every group uses (row-cells.ts), snapshots, benchmark runs, decisions with
 * samples and pull requests, node activity. Rows are written as arrays in each group's column
 * order; booleans and JSON are encoded per dialect by the store.
 */
export * from './row-cells.js';
export * from './snapshot-rows.js';
export * from './benchmark-rows.js';
export * from './decision-rows.js';
export * from './node-activity-rows.js';
