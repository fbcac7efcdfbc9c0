/**
 * A replay's slots across processes (`npm run replay` runs each section in a process of its own,
 * and a section's simulated engines in theirs): the parent holds the {@link SlotPool}
 * (`serveSlots`), a section asks it over Node's IPC channel (`parentSlots`), so at most the
 * pool's size of parts (`replaySlotCount`) run in the whole replay. A section also tells the parent the CPU seconds of each part
 * it ran (`reportPartCpu`), for the replay's last line.
 */
import type { ChildProcess } from 'node:child_process';
import type { AcquireSlot, ReleaseSlot, SlotPool } from './slots.js';

/** The messages of the channel (every one has `slot`, so other messages pass by). */
type SlotMessage =
  | { slot: 'ask'; id: number; what: string; priority: number }
  | { slot: 'grant'; id: number }
  | { slot: 'release'; id: number }
  | { slot: 'cpu'; what: string; cpuSeconds: number };

const isSlotMessage = (m: unknown): m is SlotMessage =>
  typeof m === 'object' && m !== null && typeof (m as { slot?: unknown }).slot === 'string';

let nextId = 0;

/**
 * {@link AcquireSlot} of this process's parent (which runs `serveSlots` for it).
 * @throws Error when this process has no IPC channel
 */
export function parentSlots(): AcquireSlot {
  const send = process.send?.bind(process);
  if (!send) throw new Error('replay slots: this process has no parent to ask (no IPC channel)');
  return (what, priority) =>
    new Promise<ReleaseSlot>((resolve) => {
      const id = nextId++;
      const onMessage = (m: unknown) => {
        if (!isSlotMessage(m) || m.slot !== 'grant' || m.id !== id) return;
        process.off('message', onMessage);
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          send({ slot: 'release', id } satisfies SlotMessage);
        });
      };
      process.on('message', onMessage);
      send({ slot: 'ask', id, what, priority } satisfies SlotMessage);
    });
}

/** Tells the parent the CPU seconds of one part this process ran (nothing without a parent). */
export function reportPartCpu(what: string, cpuSeconds: number): void {
  process.send?.({ slot: 'cpu', what, cpuSeconds } satisfies SlotMessage);
}

/**
 * Serves `child`'s asks from `pool` (a {@link SlotPool}, or its `acquire` wrapped) and calls `onCpu` with the parts' CPU seconds it reports. When
 * the child exits, the slots it holds are freed and what it still waits for is given back when
 * granted.
 */
export function serveSlots(
  child: ChildProcess,
  pool: Pick<SlotPool, 'acquire'>,
  onCpu?: (what: string, cpuSeconds: number) => void,
): void {
  const held = new Map<number, ReleaseSlot>();
  let gone = false;
  child.on('message', (m: unknown) => {
    if (!isSlotMessage(m)) return;
    if (m.slot === 'cpu') onCpu?.(m.what, m.cpuSeconds);
    else if (m.slot === 'release') {
      held.get(m.id)?.();
      held.delete(m.id);
    } else if (m.slot === 'ask')
      void pool.acquire(m.what, m.priority).then((release) => {
        if (gone) return release();
        held.set(m.id, release);
        child.send({ slot: 'grant', id: m.id } satisfies SlotMessage);
      });
  });
  child.once('exit', () => {
    gone = true;
    for (const release of held.values()) release();
    held.clear();
  });
}
