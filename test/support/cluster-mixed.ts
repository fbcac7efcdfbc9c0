/**
 * The 13-node `test/fixtures/cluster-mixed` world as the planning table tests read it: the
 * shipped default Policy, a fixed "now" (2026-12-01T10:00:00Z), the snapshot of the fixture's
 * Nodes and Pods at that instant, the workload templates, and a utilisation reading with no data.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import type { Policy } from '../../src/definitions/types.js';

/** Parses `test/fixtures/cluster-mixed/<file>` (a Kubernetes List as JSON). */
export const fixture = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${file}`, import.meta.url), 'utf8'));
/** `policies/default.yaml`, the Policy gpuops ships. */
export const policy = parse(
  readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8'),
) as Policy;
/** The instant every table row is judged at. */
export const now = new Date('2026-12-01T10:00:00Z');
/** The fixture's Nodes and Pods as a snapshot taken at `now`. */
export const snapshot = buildSnapshot(fixture('nodes.json') as never, fixture('pods.json') as never, now);
/** The workload templates under `templates/`. */
export const templates = loadWorkloadTemplates();
/** A reading with no data, for rows that do not scale. */
export const noData: UtilizationReading = { ok: false, reason: 'Empty', message: 'no source' };
