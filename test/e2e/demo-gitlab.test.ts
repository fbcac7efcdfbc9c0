/**
 * End to end: `runDemo({ provider: 'gitlab' })` — the same scenario with every change proposed as
 * a merge request on the GitLab stand-in (composed as `--provider gitlab`, gitbeaker over HTTP)
 * and merged by the demo's reviewer. The method reaches the same end as with the plain git
 * provider, and every record in the database is a merge request the stand-in holds, by its iid.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo, type DemoResult } from '../../src/demo/scenario.js';

let dir: string;
let result: DemoResult;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-e2e-demo-gitlab-'));
  result = await runDemo({ dir, provider: 'gitlab' });
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gpuops demo --provider gitlab', () => {
  it('reaches the same end as with branches: the test node, the moved nodes and the one returned', () => {
    expect(result.testNode).toBe('gpu-a100-02');
    expect(result.movedNodes.map((m) => m.node)).toEqual(['gpu-h100-01', 'gpu-t4-03', 'gpu-t4-01']);
    expect(result.returnedNodes).toEqual(['gpu-t4-01']);
  });

  it('opened every change as a merge request with its labels, and the reviewer merged each', () => {
    expect(result.provider).toBe('gitlab');
    expect(result.mergeRequests.length).toBeGreaterThanOrEqual(5);
    expect(result.mergeRequests.map((m) => m.iid)).toEqual(result.mergeRequests.map((_, k) => k + 1));
    for (const m of result.mergeRequests) {
      expect(m.state, `!${m.iid}`).toBe('merged');
      expect(m.labels).toContain('gpuops');
      expect(m.url).toMatch(new RegExp(`/demo/gitops/-/merge_requests/${m.iid}$`));
    }
  });

  it('records each merge request by its iid and link, merged', () => {
    const byIid = new Map(result.mergeRequests.map((m) => [m.iid, m]));
    expect(result.prs.length).toBeGreaterThan(0);
    for (const p of result.prs) {
      expect(p.state).toBe('merged');
      const mr = byIid.get(p.number!);
      expect(mr?.branch).toBe(p.branch);
      expect(p.url).toBe(mr?.url);
    }
  });
});
