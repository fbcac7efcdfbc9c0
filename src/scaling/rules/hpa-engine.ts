import { podSlots } from '../capacity.js';
import { cooldown } from './cooldown.js';
import { hold, type Facts, type Verdict } from './facts.js';
import { relabel } from './relabel.js';

/**
 * With `scaling.engine: hpa` a HorizontalPodAutoscaler owns replicas (`hold HPAOwnsReplicas`);
 * gpuops only grows the pool, relabelling `unused` nodes into it (replicas unchanged) when the
 * HPA cannot place what it wants: its pods are Pending `Unschedulable`, or it sits at its
 * `maxReplicas` (`status.currentReplicas` ≥ `spec.maxReplicas`) with utilisation strictly above
 * max (exactly max is in band) — and the pool has no room for them (room for exactly the pods
 * needed holds: the scheduler places them). The move waits for the scale-up cooldown and needs a
 * sample from every Ready pod. Null with engine gpuops.
 */
export function hpaEngine(f: Facts): Verdict | null {
  return hpaGrowsPool(f) ?? hpaOwns(f);
}

/** The HPA's view of `f`: its Pending pods, its maximum and current replicas, and whether it sits at that maximum above max. */
function hpaView(f: Facts): { pending: number; hpaMax: number; current: number; atMax: boolean } {
  const pending = f.counted.filter((p) => p.unschedulable && p.nodeName === null).length;
  const hpaMax = f.input.hpa?.maxReplicas ?? f.maxReplicas;
  const current = f.input.hpa?.currentReplicas ?? f.from;
  return { pending, hpaMax, current, atMax: current >= hpaMax && f.utilization! > f.max };
}

/**
 * The hold of {@link hpaEngine} when the HPA places what it wants (no pod Pending, not at its
 * maximum above max): judged over the Ready pods, and its message names them. Null otherwise,
 * and with engine gpuops or without a utilisation.
 */
export function hpaOwns(f: Facts): Verdict | null {
  if (f.scaling.engine !== 'hpa' || f.utilization === null) return null;
  const { pending, hpaMax, current, atMax } = hpaView(f);
  if (pending > 0 || atMax) return null;
  return hold(
    f,
    'HPAOwnsReplicas',
    `the HPA owns replicas (${current}, max ${hpaMax}); utilisation ${f.u} ${f.over}`,
  );
}

/**
 * The part of {@link hpaEngine} that grows the pool (pods Pending, or the HPA at its maximum
 * above max): decided on the pods' condition and the pool's room, not on the Ready pods'
 * utilisation, so its decisions name no Ready pod count. Null when the HPA places what it wants,
 * with engine gpuops or without a utilisation.
 */
export function hpaGrowsPool(f: Facts): Verdict | null {
  if (f.scaling.engine !== 'hpa' || f.utilization === null) return null;
  const { pending, hpaMax, atMax } = hpaView(f);
  if (pending === 0 && !atMax) return null;
  const why = pending
    ? `${pending} pod(s) Pending for lack of GPUs`
    : `the HPA sits at its maximum of ${hpaMax} replicas with utilisation ${f.u} > max ${f.max}%`;
  const need = pending || f.step;
  const placer = f.input.placer;
  const room = placer
    ? placer.slots(f.input.poolNodes, f.pool, need)
    : podSlots(f.input.poolNodes, f.request);
  if (room >= need) {
    return hold(
      f,
      'HPAOwnsReplicas',
      `${why}, but pool ${f.pool} has room for ${need} pod(s); the HPA owns replicas`,
    );
  }
  return cooldown(f, 'up', why) ?? relabel(f, { need, add: () => 0, why });
}
