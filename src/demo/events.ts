/**
 * What the demo scenario reports as it goes: one event per thing that happened. The scenario
 * emits them; `print.ts` turns them into lines for a person; the end-to-end test ignores them.
 */

/** One event of the demo. */
export type DemoEvent =
  /** A new step of the method starts (1 pools, 2 benchmarks, 3 placement, 4 scaling). */
  | { kind: 'step'; step: number; title: string; detail: string }
  /** Something happened (a PR opened, a merge, a label applied, a decision). */
  | { kind: 'line'; text: string }
  /** Something went wrong, or a mistake was found (a spec error is expected in the demo). */
  | { kind: 'problem'; text: string }
  /**
   * A long wait is progressing (a benchmark runs). `key` groups updates of one wait; `done`
   * ends it. Printers may overwrite earlier updates of the same key.
   */
  | { kind: 'progress'; key: string; text: string; done?: boolean };

/** Receives the scenario's events. */
export type DemoListener = (event: DemoEvent) => void;
