/**
 * Which algorithms cannot place a replica, and since when (pure): the newest pass's scaling
 * decision holds with `NoCapacity` (no node of the pool has room and no unused node fits), and
 * the stored decisions say how long that has been so in a row.
 */
import type { DecisionRecord, StatusAlgorithmEntry } from '../store/index.js';

/**
 * Each algorithm of the newest pass held at `NoCapacity`, with the start of its unbroken run of
 * `NoCapacity` decisions (epoch seconds; the pass's own time when no earlier decision is stored)
 * and the decision's message.
 * @param history scaling decisions per algorithm, oldest first (as `Store.decisions` returns them)
 * @param passAt the newest pass (epoch seconds)
 */
export function unplaceable(
  algorithms: readonly Pick<StatusAlgorithmEntry, 'name' | 'scalingReason' | 'scalingMessage'>[],
  history: ReadonlyMap<string, readonly DecisionRecord[]>,
  passAt: number | null,
): { name: string; since: number; message: string }[] {
  if (passAt === null) return [];
  return algorithms
    .filter((a) => a.scalingReason === 'NoCapacity')
    .map((a) => {
      const decisions = (history.get(a.name) ?? []).filter((d) => d.kind === 'scaling');
      let since = passAt;
      for (let i = decisions.length - 1; i >= 0 && decisions[i]!.reason === 'NoCapacity'; i--)
        since = Math.min(since, Date.parse(decisions[i]!.at) / 1000);
      return { name: a.name, since, message: a.scalingMessage ?? '' };
    });
}
