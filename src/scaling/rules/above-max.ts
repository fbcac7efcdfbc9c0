import { hold, type Facts, type Verdict } from './facts.js';
import { relabel } from './relabel.js';

/** "utilisation 95% over 3 of 3 Ready pod(s) > max 80%": what opens every scale-up message. */
export function aboveText(f: Facts): string {
  return `utilisation ${f.u} ${f.over} > max ${f.max}%`;
}

/** Above `max` at `maxReplicas` or more → `hold AtMaxReplicas` (null below it): the limit is the spec's. */
export function atMaxReplicas(f: Facts): Verdict | null {
  if (f.from < f.maxReplicas) return null;
  return hold(
    f,
    'AtMaxReplicas',
    `${aboveText(f)}, but replicas ${f.from} are at maxReplicas ${f.maxReplicas}`,
  );
}

/**
 * The scale-up to `to` replicas that every earlier rule let through, bounded by capacity: pods of
 * `resources.gpus` GPUs each on free GPUs of the pool's nodes, after the replicas in Git not bound
 * yet took theirs (`poolSlots`). Room for at least one pod (exactly one counts) → `scale-up
 * AboveMax` by as many as fit; the message says when free GPUs bounded it. No room → move `unused`
 * nodes in for the wanted pods plus the unbound ones (`relabel`), then scale up by what the moved
 * nodes hold beyond the unbound pods. `above` opens the message and `reason` names the scale-up
 * (`HeadroomShort` for headroom sizing, whose scale-ups need not be above max).
 */
export function scaleUpOnCapacity(
  f: Facts,
  to: number,
  above = aboveText(f),
  reason: 'AboveMax' | 'HeadroomShort' = 'AboveMax',
): Verdict {
  const want = to - f.from;
  if (f.poolSlots >= 1) {
    const add = Math.min(want, f.poolSlots);
    const bounded =
      add < want ? ` (bounded by free GPUs: room for ${f.poolSlots} more pod(s) of ${f.gpus} GPU(s))` : '';
    return {
      action: 'scale-up',
      to: f.from + add,
      reason,
      message: `${above}; scaling ${f.from} → ${f.from + add} on pool ${f.pool}${bounded}`,
    };
  }
  // No room: pods not yet bound (−poolSlots of them) need a place too.
  const short = -Math.min(0, f.poolSlots);
  return relabel(f, {
    need: want + short,
    add: (got) => Math.max(0, Math.min(want, got - short)),
    why: above,
  });
}
