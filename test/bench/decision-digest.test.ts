import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  decidedPart,
  digestOf,
  digestOfPasses,
  type DecidedPass,
} from '../../bench/decision-digest.js';

/** A pass that decided to keep two algorithms as they are, as the loop bench's steady pass does. */
function pass(): DecidedPass {
  return {
    plan: {
      cluster: 'prod',
      errors: [],
      pools: [{ node: 'gpu-0001', pool: 'long-task', reason: 'Kept' }],
      placements: [{ algorithm: 'algo-0001', pool: 'long-task', nodes: ['gpu-0001'] }],
      scaling: [
        {
          algorithm: 'algo-0001',
          action: 'none',
          replicas: { from: 3, to: 3 },
          utilization: 55.3,
          nodes: [],
          reason: 'InBand',
          message: 'in band: 55.3 % over 3 of 3 Ready pods',
          readyPods: 3,
        },
        {
          algorithm: 'algo-0002',
          action: 'none',
          replicas: { from: 2, to: 2 },
          utilization: 41,
          nodes: [],
          reason: 'InBand',
          message: 'in band: 41 % over 2 of 2 Ready pods',
          readyPods: 2,
        },
      ],
      files: [{ path: 'clusters/prod/placement.yaml', content: 'a: 1\n' }],
      metrics: { evaluatedAt: '2026-12-01T12:00:30.000Z', skewSeconds: 0, dropped: new Map([['Stale', 2]]) },
    },
    changeSets: [],
    writeBack: [],
    patches: [],
    decisions: 2,
    prs: 0,
    errors: 0,
    reasons: [{ kind: 'scaling', reason: 'InBand' }],
    watch: { metric: 'DCGM_FI_DEV_GPU_UTIL', windowSeconds: 60, algorithms: [], judge: () => 0 },
  };
}
const none = { commits: 0, pushes: 0, prWrites: 0 };
type Scaling = { replicas: { to: number }; message: string; utilization: number }[];

describe('the decision digest of the loop bench', () => {
  it('is the same for the same decisions, and 64 hex digits', () => {
    const d = digestOf(decidedPart(pass(), none));
    expect(d).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOf(decidedPart(pass(), none))).toBe(d);
  });

  it('changes when a decision changes: its replicas, its message, its utilisation', () => {
    const base = digestOf(decidedPart(pass(), none));
    const changes: ((s: Scaling) => void)[] = [
      (s) => (s[0]!.replicas.to = 4),
      (s) => (s[1]!.message += '.'),
      (s) => (s[0]!.utilization = 55.30000001),
    ];
    for (const change of changes) {
      const p = pass();
      change((p.plan as { scaling: Scaling }).scaling);
      expect(digestOf(decidedPart(p, none))).not.toBe(base);
    }
  });

  it('changes when the decisions come in another order, or a write was made', () => {
    const base = digestOf(decidedPart(pass(), none));
    const p = pass();
    (p.plan as { scaling: Scaling }).scaling.reverse();
    expect(digestOf(decidedPart(p, none))).not.toBe(base);
    expect(digestOf(decidedPart(pass(), { ...none, prWrites: 1 }))).not.toBe(base);
    expect(digestOf(decidedPart({ ...pass(), patches: ['taint gpu-0001'] }, none))).not.toBe(base);
  });

  it('is the same when only the order of keys (or of a Map) differs', () => {
    const base = digestOf(decidedPart(pass(), none));
    const p = pass();
    const plan = p.plan as Record<string, unknown> & { scaling: Record<string, unknown>[] };
    plan.scaling = plan.scaling.map((d) => Object.fromEntries(Object.entries(d).reverse()));
    p.plan = Object.fromEntries(Object.entries(plan).reverse());
    (p.plan as { metrics: { dropped: Map<string, number> } }).metrics.dropped = new Map([['Stale', 2]]);
    expect(digestOf(decidedPart(p, none))).toBe(base);
    expect(
      canonicalJson({
        b: 1,
        a: new Map([
          ['y', 1],
          ['x', 2],
        ]),
      }),
    ).toBe(
      canonicalJson({
        a: new Map([
          ['x', 2],
          ['y', 1],
        ]),
        b: 1,
      }),
    );
  });

  it('tells apart what plain JSON would blur: a Map from an empty object, NaN from null, undefined from absent in arrays', () => {
    expect(canonicalJson({ m: new Map([['a', 1]]) })).not.toBe(canonicalJson({ m: {} }));
    expect(canonicalJson([Number.NaN])).not.toBe(canonicalJson([null]));
    expect(canonicalJson([undefined])).not.toBe(canonicalJson([null]));
    expect(canonicalJson(new Set(['b', 'a']))).toBe(canonicalJson(new Set(['a', 'b'])));
    expect(canonicalJson({ a: undefined, b: 1 })).toBe(canonicalJson({ b: 1 }));
  });

  it('leaves out the watchlist judge (functions), but throws on any other function with its path', () => {
    const p = pass();
    expect(() => digestOf(decidedPart(p, none))).not.toThrow();
    (p.plan as Record<string, unknown>).later = () => 1;
    expect(() => digestOf(decidedPart(p, none))).toThrow('$.plan.later is a function');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow('$.self refers back to itself');
  });

  it('joins the passes in order', () => {
    expect(digestOfPasses(['a', 'b'])).not.toBe(digestOfPasses(['b', 'a']));
    expect(digestOfPasses(['a', 'b'])).toBe(digestOfPasses(['a', 'b']));
  });
});
