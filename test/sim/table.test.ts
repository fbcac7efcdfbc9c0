/**
 * The simulated cluster answers `kubectl get` as a real API server does: with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json` it returns a
 * meta.k8s.io/v1 Table with kubectl's columns (nodes NAME STATUS ROLES AGE VERSION; pods NAME
 * READY STATUS RESTARTS AGE), and plain JSON without that header.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { shortAge } from '../../src/sim/table.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/cluster-mixed');
const KUBECTL_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
let sim: SimCluster;

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: JSON.parse(readFileSync(path.join(FIXTURE, 'nodes.json'), 'utf8')),
    pods: JSON.parse(readFileSync(path.join(FIXTURE, 'pods.json'), 'utf8')),
  });
});
afterAll(() => sim.close());

interface Table {
  kind: string;
  columnDefinitions: { name: string }[];
  rows: { cells: unknown[]; object: { metadata: { name: string } } }[];
}
const get = async (p: string, accept = KUBECTL_ACCEPT) =>
  (await (await fetch(`${sim.url}${p}`, { headers: { accept } })).json()) as Table & { items?: unknown[] };

describe('Table format for kubectl get', () => {
  it('nodes: STATUS with SchedulingDisabled and Unknown, ROLES, AGE, VERSION', async () => {
    const t = await get('/api/v1/nodes');
    expect(t.kind).toBe('Table');
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version']);
    const row = (n: string) => t.rows.find((r) => r.cells[0] === n)!.cells;
    expect(row('gpu-h100-02')[1]).toBe('Ready,SchedulingDisabled');
    expect(row('gpu-t4-04')[1]).toBe('Unknown');
    expect(row('gpu-a100-01')[1]).toBe('Ready');
    expect(String(row('gpu-a100-01')[4])).toMatch(/^v1\.\d+/);
    expect(row('gpu-a100-01')[3]).toMatch(/^\d+[smhdy]$/);
    expect(t.rows[0]!.object.metadata.name).toBe(t.rows[0]!.cells[0]);
  });

  it('pods: READY n/m, STATUS, RESTARTS; one object too', async () => {
    const t = await get('/api/v1/pods');
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    const pending = t.rows.find((r) => String(r.cells[0]).startsWith('batch-embed'))!;
    expect(pending.cells[2]).toBe('Pending');
    expect(pending.cells[1]).toMatch(/^0\/\d+$/);
    const one = await get('/api/v1/nodes/gpu-a100-01');
    expect(one.rows.map((r) => r.cells[0])).toEqual(['gpu-a100-01']);
  });

  it('without the Table Accept header: the plain list', async () => {
    const l = await get('/api/v1/nodes', 'application/json');
    expect(l.kind).toBe('NodeList');
    expect(l.items).toHaveLength(13);
  });

  it.each([
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [3 * 3600 - 1, '179m'],
    [3 * 3600, '3h'],
    [2 * 86400, '2d'],
  ])('age of %d s reads %s', (s, text) => expect(shortAge(s)).toBe(text));
});
