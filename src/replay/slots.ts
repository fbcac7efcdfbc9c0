/**
 * Slots for a replay's CPU-bound parts (each simulated engine, the model, each fleet section): at
 * most `size` hold one at once — one more than the cores ({@link replaySlotCount}) — and a freed
 * slot goes to the waiting part of the highest priority (the first asked among equals). The
 * longest parts asked first with the highest priority end the replay soonest (longest processing
 * time first: within 4/3 of the best order).
 */

/** Gives up a slot (a second call does nothing). */
export type ReleaseSlot = () => void;

/** Waits for a slot for `what` (a name for messages) at `priority` (higher first). */
export type AcquireSlot = (what: string, priority: number) => Promise<ReleaseSlot>;

/**
 * The slots of a replay on `cores` cores: one more than the cores. A simulated engine keeps a core
 * busy only about five sixths of the time it holds a slot (it sleeps the rest: on its git
 * processes, the file system, the cache barrier's 1 ms timer; not broken down further). At main
 * f5b065d, on an otherwise idle machine, the HPA engine used 97.5 s CPU in 115.5 s wall, gpuops
 * patch mode 130.3 s in 156.4 s, PR mode 120.5 s in 149.1 s: with one part a core, a sixth of
 * each core idled while the engines ran. One part more fills it, and the cores share the parts'
 * CPU to the end (issue 42; the schedule worked out in docs/performance.md, "The whole replay's
 * wall time").
 * @throws RangeError when `cores` is not a positive integer
 */
export function replaySlotCount(cores: number): number {
  if (!Number.isInteger(cores) || cores < 1)
    throw new RangeError(`slots: ${cores} cores is not a positive integer`);
  return cores + 1;
}

/** The priorities of a replay's parts: the simulated engines are the longest (minutes of CPU each). */
export const SLOT_PRIORITY = { engine: 2, fleet: 1, model: 0 } as const;

interface Waiter {
  priority: number;
  order: number;
  grant: (release: ReleaseSlot) => void;
}

/** A pool of `size` slots (see the module comment). @throws RangeError when `size` is not a positive integer */
export class SlotPool {
  private held = 0;
  private asked = 0;
  private readonly waiting: Waiter[] = [];
  /** While paused nothing is granted (a caller gathering every part's ask first). */
  private paused = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots: ${size} is not a positive integer`);
  }

  /** Slots held now. */
  get inUse(): number {
    return this.held;
  }

  /** {@link AcquireSlot}. */
  readonly acquire: AcquireSlot = (_what, priority) =>
    new Promise((grant) => {
      this.waiting.push({ priority, order: this.asked++, grant });
      this.grantFree();
    });

  /** Grants nothing until `resume` (asks are kept). */
  pause(): void {
    this.paused = true;
  }

  /** Grants the free slots again, the highest priority first. */
  resume(): void {
    this.paused = false;
    this.grantFree();
  }

  private grantFree(): void {
    while (!this.paused && this.held < this.size && this.waiting.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) {
        const w = this.waiting[i]!;
        const b = this.waiting[best]!;
        if (w.priority > b.priority || (w.priority === b.priority && w.order < b.order)) best = i;
      }
      const [w] = this.waiting.splice(best, 1);
      this.held++;
      let released = false;
      w!.grant(() => {
        if (released) return;
        released = true;
        this.held--;
        this.grantFree();
      });
    }
  }
}
