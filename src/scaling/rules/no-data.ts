import { cooldown } from './cooldown.js';
import { hold, type Facts, type Verdict } from './facts.js';
import { relabel } from './relabel.js';

/**
 * No utilisation at all (no Ready counted pod has a sample) → `hold NoData`, never 0 %: the HPA
 * does not act on a metric it cannot read (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details).
 * The message names why: the source's failure, no Ready pod, or the pods' series dropped by
 * reason. One case moves nodes without utilisation: replicas Pending `Unschedulable` (not bound)
 * while the pool has no room for the replicas not bound yet (`poolSlots` < 0; exactly the room
 * they need is 0 and waits for the scheduler) — right after placement the pool is empty and the
 * pods show no utilisation until they run. The pods' condition is the evidence, so unused nodes
 * move in for them (`relabel`, replicas unchanged) after the scale-up cooldown. Null when there is
 * a utilisation.
 */
export function noData(f: Facts): Verdict | null {
  if (f.utilization !== null) return null;
  const pending = f.counted.filter((p) => p.unschedulable && p.nodeName === null).length;
  if (pending > 0 && f.poolSlots < 0) {
    const why = `${pending} pod(s) Pending: pool ${f.pool} has no room for ${-f.poolSlots} more pod(s) of ${f.gpus} GPU(s)`;
    return (
      cooldown(f, 'up', why) ?? relabel(f, { need: -f.poolSlots, add: () => 0, why, requireSamples: false })
    );
  }
  const why =
    f.input.noDataMessage ??
    (f.ready.length === 0
      ? `none of its ${f.counted.length} counted pod(s) is Ready, so no GPU sample can count`
      : `no usable GPU sample for any of ${f.ready.length} Ready pod(s)${f.droppedNote || ' (no series of the source names them)'}`);
  return hold(f, 'NoData', `${why}; utilisation unknown, replicas stay at ${f.from}`);
}
