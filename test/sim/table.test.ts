/**
 * The simulated cluster answers `kubectl get` as a real API server does: with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json` it returns a
 * meta.k8s.io/v1 Table with kubectl's columns (nodes NAME STATUS ROLES AGE VERSION; pods NAME
 * READY STATUS RESTARTS AGE), and plain JSON without that header.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simFetch } from '../support/sim-fetch.js';
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
  columnDefinitions: { name: string; priority: number }[];
  rows: { cells: unknown[]; object: { metadata: { name: string } } }[];
}
/** The columns kubectl prints without `-o wide` (priority 0). */
const narrow = (t: Table) => t.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name);
const get = async (p: string, accept = KUBECTL_ACCEPT) =>
  (await (await simFetch(sim, p, { headers: { accept } })).json()) as Table & { items?: unknown[] };

describe('Table format for kubectl get', () => {
  it('nodes: STATUS with SchedulingDisabled and Unknown, ROLES, AGE, VERSION', async () => {
    const t = await get('/api/v1/nodes');
    expect(t.kind).toBe('Table');
    expect(narrow(t)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version']);
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
    expect(narrow(t)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
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

  it('nodes -o wide: INTERNAL-IP and the runtime from status (priority 1)', async () => {
    const t = await get('/api/v1/nodes/gpu-a100-01');
    const wide = t.columnDefinitions.filter((c) => c.priority === 1).map((c) => c.name);
    expect(wide).toEqual(['Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime']);
    expect(t.rows[0]!.cells[5]).toBe('192.0.2.24');
    expect(t.rows[0]!.cells[6]).toBe('<none>');
    expect(t.rows[0]!.cells[9]).toMatch(/^containerd:\/\//);
  });

  it('secrets: TYPE and the number of keys, never a value; includeObject None drops the object', async () => {
    const res = await simFetch(sim, '/api/v1/namespaces/research/secrets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'token' },
        stringData: { token: 's3cr3t-value' },
        data: { user: Buffer.from('admin').toString('base64') },
      }),
    });
    expect(res.status).toBe(201);
    const t = await get('/api/v1/namespaces/research/secrets?includeObject=None');
    expect(narrow(t)).toEqual(['Name', 'Type', 'Data', 'Age']);
    expect(t.rows.map((r) => r.cells.slice(0, 3))).toEqual([['token', 'Opaque', 2]]);
    expect(JSON.stringify(t)).not.toMatch(/s3cr3t|YWRtaW4|c3Nj/);
    expect(t.rows[0]!.object).toBeUndefined();
    const full = await get('/api/v1/namespaces/research/secrets?includeObject=Object');
    expect((full.rows[0]!.object as unknown as { kind: string }).kind).toBe('Secret');
  });

  it.each([
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [3 * 3600 - 1, '179m'],
    [3 * 3600, '3h'],
    [2 * 86400, '2d'],
    [150, '2m30s'],
    [600, '10m'],
    [5.5 * 3600, '5h30m'],
    [8 * 3600, '8h'],
    [50 * 3600, '2d2h'],
    [8 * 86400, '8d'],
    [-1, '0s'],
    [-2, '<invalid>'],
  ])('age of %d s reads %s', (s, text) => expect(shortAge(s)).toBe(text));
});
