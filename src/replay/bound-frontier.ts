/**
 * The causal bound family's frontier against the HPA's (pure): how far the best reacting rules
 * R(W, β) of `causal-bound.ts`, under a loop's delays, lie above the HPA frontier under the same
 * delays — the measure of issue 42's fast-loop target ("frontier ≥ 3 points above the HPA's at
 * equal unserved load"), taken on the family instead of gpuops, so the replay says whether any
 * rule of the family could meet it. Two comparisons, both over 0.05–0.5 % unserved (both ends
 * included), as gpuops's lead (`frontier.ts`, `frontierGap`):
 *
 * - **at equal unserved load, pod-time above max left free** (the target's own measure): every
 *   rule in the range against the HPA frontier read at its unserved load by `hpaUtilizationAt`
 *   (upper envelope, linear between points, below the HPA's lowest unserved load that point's
 *   utilisation: generous to the HPA; above its highest, no comparison). The rules on the family's
 *   own upper envelope (`upperEnvelope`) are its frontier: the smallest lead over them is the
 *   figure printed as gpuops's is; the largest lead over every rule is the most any rule reaches.
 * - **at equal unserved load and no more pod-time above max**: at each point of the HPA's frontier
 *   in the range (the HPA points no other HPA point beats on all three figures), the family's
 *   utilisation at the HPA point's unserved load over the rules whose pod-time above max is no more
 *   than the HPA point's, read on their upper envelope by the same rule seen from the other side
 *   ({@link utilizationWithin}: linear between rules; above the highest rule's unserved load that
 *   rule's utilisation; below the lowest, no rule got there: no comparison). The family sweeps two
 *   parameters, so it can be held to both of the HPA's figures at once; the HPA, one.
 */
import type { BoundPoint } from './causal-bound.js';
import { hpaUtilizationAt, upperEnvelope, type FrontierPoint } from './frontier.js';

/** The rule the lead is a question about: the target, ≥ 3 points at equal unserved load. */
export const FRONTIER_LEAD_TARGET = 3;

/** A rule R(W, β): its window (seconds) and headroom factor. */
export interface RuleId {
  windowSeconds: number;
  beta: number;
}

/** One rule in the range against the HPA at its unserved load (percent, points). */
export interface RuleLead extends RuleId {
  unserved: number;
  aboveMax: number;
  utilization: number;
  /** The HPA frontier's utilisation at `unserved` (rounded to 0.01). */
  hpa: number;
  /** `utilization − hpa`, rounded to 0.01. */
  lead: number;
  /** The HPA value is its lowest point's, below which no target got (`hpaUtilizationAt`'s `bound`). */
  hpaBound: boolean;
  /** On the family's upper envelope (its frontier). */
  onFrontier: boolean;
}

/** One HPA frontier point against the family held to its unserved load and pod-time above max. */
export interface TargetLead {
  /** The HPA's target (percent). */
  target: number;
  unserved: number;
  aboveMax: number;
  hpa: number;
  /** The family's utilisation there (rounded to 0.01), and the one or two rules it is read between. */
  family: number;
  rules: RuleId[];
  lead: number;
}

/** The family's lead over the HPA frontier, both ways (see the module's comment). */
export interface FamilyLead {
  atUnserved: {
    /** Every rule in the range with an HPA value, by unserved load. */
    compared: RuleLead[];
    /** The smallest lead over the family's frontier (its envelope's rules compared); null: none compared. */
    minLead: number | null;
    /** The rule of the largest lead (the most any rule reaches); null: none compared. */
    best: RuleLead | null;
  };
  atBoth: {
    /** Each HPA frontier point in the range that some rule covers, by unserved load. */
    compared: TargetLead[];
    /** HPA targets in the range no rule reaches with as little unserved load and pod-time above max. */
    uncovered: number[];
    minLead: number | null;
    best: TargetLead | null;
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The most the points reach at no more than `unserved` percent: on their upper envelope, linear
 * between the two points around it, the utilisation of the highest point above its unserved load
 * (a point with less unserved load reached it), null below the lowest (none got there) or without
 * points. `from`: the one or two points it is read from.
 */
export function utilizationWithin<P extends { unservedPercent: number; utilizationPercent: number }>(
  points: readonly P[],
  unserved: number,
): { utilization: number; from: P[] } | null {
  const env = upperEnvelope(points.map((p) => ({ x: p.unservedPercent, y: p.utilizationPercent, p })));
  if (env.length === 0 || unserved < env[0]!.x) return null;
  for (let i = 0; i + 1 < env.length; i++) {
    const a = env[i]!;
    const b = env[i + 1]!;
    if (unserved === a.x) return { utilization: a.y, from: [a.p] };
    if (unserved < b.x)
      return { utilization: a.y + ((b.y - a.y) * (unserved - a.x)) / (b.x - a.x), from: [a.p, b.p] };
  }
  const last = env[env.length - 1]!;
  return { utilization: last.y, from: [last.p] };
}

/**
 * The HPA points no other HPA point beats: none with no more unserved load and no more pod-time
 * above max reaches at least its utilisation, one of the three strictly.
 */
export function hpaParetoFront(hpa: readonly FrontierPoint[]): FrontierPoint[] {
  const f = (p: FrontierPoint) => p.figures;
  const beats = (a: FrontierPoint, b: FrontierPoint) =>
    f(a).unservedPercent <= f(b).unservedPercent &&
    f(a).aboveMaxPercent <= f(b).aboveMaxPercent &&
    f(a).utilizationPercent >= f(b).utilizationPercent &&
    (f(a).unservedPercent < f(b).unservedPercent ||
      f(a).aboveMaxPercent < f(b).aboveMaxPercent ||
      f(a).utilizationPercent > f(b).utilizationPercent);
  return hpa.filter((p) => !hpa.some((q) => q !== p && beats(q, p)));
}

/** The family's lead at equal unserved load, pod-time above max left free. */
function atUnserved(hpa: readonly FrontierPoint[], rules: readonly BoundPoint[], lo: number, hi: number) {
  const frontier = new Set(
    upperEnvelope(rules.map((r) => ({ x: r.unservedPercent, y: r.utilizationPercent, r }))).map((e) => e.r),
  );
  const compared: RuleLead[] = [];
  for (const r of [...rules].sort((a, b) => a.unservedPercent - b.unservedPercent)) {
    if (r.unservedPercent < lo || r.unservedPercent > hi) continue;
    const at = hpaUtilizationAt(hpa, r.unservedPercent);
    if (at === null) continue;
    const h = round2(at.utilization);
    compared.push({
      windowSeconds: r.windowSeconds,
      beta: r.beta,
      unserved: r.unservedPercent,
      aboveMax: r.aboveMaxPercent,
      utilization: r.utilizationPercent,
      hpa: h,
      lead: round2(r.utilizationPercent - h),
      hpaBound: at.bound,
      onFrontier: frontier.has(r),
    });
  }
  const onFrontier = compared.filter((c) => c.onFrontier).map((c) => c.lead);
  return {
    compared,
    minLead: onFrontier.length ? Math.min(...onFrontier) : null,
    best: compared.reduce<RuleLead | null>((a, c) => (a === null || c.lead > a.lead ? c : a), null),
  };
}

/** The family's lead at equal unserved load and no more pod-time above max, at the HPA's frontier points. */
function atBoth(hpa: readonly FrontierPoint[], rules: readonly BoundPoint[], lo: number, hi: number) {
  const compared: TargetLead[] = [];
  const uncovered: number[] = [];
  const front = hpaParetoFront(hpa).sort((a, b) => a.figures.unservedPercent - b.figures.unservedPercent);
  for (const h of front) {
    const x = h.figures.unservedPercent;
    if (x < lo || x > hi) continue;
    const within = rules.filter((r) => r.aboveMaxPercent <= h.figures.aboveMaxPercent);
    const at = utilizationWithin(within, x);
    if (at === null) {
      uncovered.push(h.parameter);
      continue;
    }
    const family = round2(at.utilization);
    const hpaUtil = round2(h.figures.utilizationPercent);
    compared.push({
      target: h.parameter,
      unserved: x,
      aboveMax: h.figures.aboveMaxPercent,
      hpa: hpaUtil,
      family,
      rules: at.from.map((r) => ({ windowSeconds: r.windowSeconds, beta: r.beta })),
      lead: round2(family - hpaUtil),
    });
  }
  const leads = compared.map((c) => c.lead);
  return {
    compared,
    uncovered,
    minLead: leads.length ? Math.min(...leads) : null,
    best: compared.reduce<TargetLead | null>((a, c) => (a === null || c.lead > a.lead ? c : a), null),
  };
}

/**
 * The causal bound family's lead over the HPA frontier `hpa` (the same delays), from its rules
 * `rules` (`CausalBound.points`), over unserved loads `lo..hi` percent (see the module's comment).
 */
export function familyLead(
  hpa: readonly FrontierPoint[],
  rules: readonly BoundPoint[],
  lo = 0.05,
  hi = 0.5,
): FamilyLead {
  return { atUnserved: atUnserved(hpa, rules, lo, hi), atBoth: atBoth(hpa, rules, lo, hi) };
}
