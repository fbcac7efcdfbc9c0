import { recentPeak } from '../history.js';
import { changesAt, hold, round1, type Facts, type Target, type Verdict } from './facts.js';
import { isoMs } from '../iso-ms.js';

/**
 * The scale-down peak window (`scaling.scaleDown.peakWindowSeconds`, default 0: off): a
 * scale-down goes no lower than the replicas that keep the window's highest recorded load
 * (utilisation × Ready pods, see `recentPeak`) at or below `max` — exactly `max` on the smaller
 * count allows it — and when that is the current count → `hold RecentPeak`: a load that came back
 * within the window is likely to come back again. No record in the window: the rule does not apply
 * (the target passes unchanged); missing data is the other rules' business. The note on the
 * target says why it stops short. `why` opens the message.
 */
export function peakWindow(f: Facts, t: Target, why: string): Verdict | Target {
  const seconds = f.scaling.scaleDown.peakWindowSeconds ?? 0;
  const peak = recentPeak(f.records, f.nowMs, seconds);
  if (seconds > 0) {
    f.clock.readsHolds = true;
    // A record inside the window leaves it one millisecond after it is `seconds` old.
    for (const r of f.records) {
      const at = isoMs(r.at);
      if (at <= f.nowMs) changesAt(f, at + seconds * 1000 + 1);
    }
  }
  if (peak === null) return t;
  let lower = t.to;
  while (lower < f.from && peak.load / lower > f.max) lower++;
  if (lower >= f.from) {
    return hold(
      f,
      'RecentPeak',
      `${why}, but the highest load in the last ${seconds}s (${round1(peak.utilization)}% on ${peak.replicas} replica(s) at ${peak.at}) would put ${f.from} → ${t.to} at ${round1(peak.load / t.to)}% > max ${f.max}%; replicas stay at ${f.from}`,
    );
  }
  if (lower === t.to) return t;
  return {
    to: lower,
    note: ` (not ${t.to}: the highest load in the last ${seconds}s would put it at ${round1(peak.load / t.to)}% > max ${f.max}%)`,
  };
}
