import { describe, expect, it } from 'vitest';
import { heldByFillHolds, listFailureHolds, newFillHolds, unlabelledHold } from './fill-hold.js';

const waiting = [
  { algorithm: 'bert', job: 'algorithms/bert-fill' },
  { algorithm: 'gpt', job: 'algorithms/gpt-fill' },
];
const forbidden = listFailureHolds('algorithms', { status: 403, detail: 'jobs.batch is forbidden' }, waiting);
const down = listFailureHolds('algorithms', { status: 503, detail: '' }, waiting);
const other = listFailureHolds('team-b', { status: 403, detail: 'x' }, [
  { algorithm: 'llm', job: 'team-b/llm-fill' },
]);
const scopes = (holds: { scope: string; code: string }[]) => holds.map((h) => `${h.scope} ${h.code}`);

describe('newFillHolds: once per namespace (or unlabelled Job) and cause, again after it cleared', () => {
  it('warns a namespace once for all its held algorithms, not again while it stays', () => {
    const warned = new Map<string, string>();
    expect(scopes(newFillHolds(forbidden, warned))).toEqual(['list algorithms HTTP 403']);
    expect(newFillHolds(forbidden, warned)).toEqual([]);
    expect(scopes(newFillHolds([...forbidden, ...other], warned))).toEqual(['list team-b HTTP 403']);
  });

  it('another cause in the same namespace warns again', () => {
    const warned = new Map<string, string>();
    newFillHolds(forbidden, warned);
    expect(scopes(newFillHolds(down, warned))).toEqual(['list algorithms HTTP 503']);
  });

  it('a pass without the hold clears it: when it comes back it warns again', () => {
    const warned = new Map<string, string>();
    newFillHolds([...forbidden, ...other], warned);
    expect(newFillHolds(other, warned)).toEqual([]);
    expect(warned).toEqual(new Map([['list team-b', 'HTTP 403']]));
    expect(scopes(newFillHolds(forbidden, warned))).toEqual(['list algorithms HTTP 403']);
  });

  it('an unlabelled Job is its own scope, beside its namespace’s list', () => {
    const warned = new Map<string, string>();
    const hand = unlabelledHold('algorithms', 'bert', 'algorithms/bert-fill', 'l=v');
    expect(scopes(newFillHolds([hand, ...down], warned))).toEqual([
      'job algorithms/bert-fill unlabelled',
      'list algorithms HTTP 503',
    ]);
    expect(newFillHolds([hand], warned)).toEqual([]);
  });
});

describe('listFailureHolds and heldByFillHolds: what the status page says, by algorithm', () => {
  it('one entry per held algorithm, the status, the detail and what to do', () => {
    expect(Object.fromEntries(heldByFillHolds(forbidden))).toEqual({
      bert: {
        reason: 'ModelCacheFillNotListed',
        message:
          'fill Job algorithms/bert-fill: fill Jobs could not be listed: HTTP 403: jobs.batch is forbidden — apply the gpuops-benchmark ClusterRole of this version (it grants list on batch/jobs; the RoleBinding gpuops writes in namespace algorithms binds it there); the Deployment is held until gpuops reads the fill Complete',
      },
      gpt: expect.objectContaining({ reason: 'ModelCacheFillNotListed' }),
    });
  });

  it.each([
    [429, 'HTTP 429 — the API server failed to answer; tried again next pass'],
    [422, 'HTTP 422 — tried again next pass'],
    [null, 'no answer — no answer from the API server; tried again next pass'],
  ])('status %s without detail → %s', (status, says) => {
    const [h] = listFailureHolds('ns', { status, detail: ' ' }, [waiting[0]!]);
    expect(h!.why).toBe(`fill Jobs could not be listed: ${says}`);
  });

  it('cuts a long detail to 300 characters', () => {
    const [h] = listFailureHolds('ns', { status: 500, detail: 'x'.repeat(1000) }, [waiting[0]!]);
    expect(h!.why).toBe(
      `fill Jobs could not be listed: HTTP 500: ${'x'.repeat(300)} — the API server failed to answer; tried again next pass`,
    );
  });
});
