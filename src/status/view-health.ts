/**
 * The health summary of the status page (pure): the facts the built-in health rules read,
 * gathered from the view's sections and the newest pass, plus the causes other parts know.
 */
import { cacheHealthCauses } from './cache-health.js';
import { HEALTH_DEFAULTS, healthCauses, summarizeHealth, type HealthSummary } from './health.js';
import { unplaceable } from './unplaceable.js';
import type { StatusAlgorithm, StatusInput, StatusPullRequest } from './view-types.js';

/**
 * Summarises health from the input and the view's `algorithms` and `openPullRequests`. `now` is
 * never before the newest pass (a simulated clock runs ahead of the wall clock).
 */
export function statusHealth(
  input: StatusInput,
  algorithms: readonly StatusAlgorithm[],
  openPullRequests: readonly StatusPullRequest[],
): HealthSummary {
  const nowSeconds = input.now.getTime() / 1000;
  const passAt = input.fleet ? Date.parse(input.fleet.at) / 1000 : null;
  const openedAt = new Map(
    (input.pullRequestCycles ?? []).filter((c) => c.state === 'open').map((c) => [c.branch, c.openedAt]),
  );
  const withScaling = (reason: string) =>
    algorithms.filter((a) => a.replicas !== null && a.scalingReason === reason).map((a) => a.name);
  const facts = {
    ...HEALTH_DEFAULTS,
    ...input.health,
    // A simulated clock runs ahead of the wall clock: the pass's own time is never "in the future".
    now: Math.max(nowSeconds, passAt ?? 0),
    passAt,
    algorithmsWithoutMetrics: withScaling('NoData'),
    algorithmsOnPartialMetrics: withScaling('PartialData'),
    failedBenchmarks: (input.fleet?.algorithms ?? [])
      .filter((a) => a.placementReason === 'BenchmarkFailed')
      .map((a) => a.name)
      .sort(),
    unplaceable: unplaceable(input.fleet?.algorithms ?? [], input.history, passAt),
    ...(input.fleet?.podStartupSeconds !== undefined
      ? { startupAllowanceSeconds: input.fleet.podStartupSeconds }
      : {}),
    writeRefusals: (input.fleet?.writeRefusals ?? []).map((r) => ({
      ref: r.ref,
      reason: r.reason,
      since: Date.parse(r.since) / 1000,
    })),
    openPullRequests: openPullRequests.map((p) => ({
      branch: p.branch,
      openedAt: Date.parse(openedAt.get(p.branch) ?? p.updatedAt) / 1000,
    })),
  };
  return summarizeHealth(
    [...(input.healthCauses ?? []), ...cacheHealthCauses(input.cache ?? []), ...healthCauses(facts)],
    facts,
  );
}
