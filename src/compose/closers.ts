/**
 * The parts a composition root started, and the one order they close in: the reverse of start, so
 * that nothing closes while a part started after it (and so perhaps using it) is still open.
 */

/** The started parts, closed last-started first. */
export interface Closers {
  /** Records a part just started and how to close it. */
  add(part: string, close: () => Promise<void> | void): void;
  /**
   * Closes every part added so far, once, last started first. A closer that throws (or rejects) is
   * given to `report` and the parts started before it still close. Never rejects.
   */
  close(): Promise<void>;
}

/**
 * An empty set of started parts.
 * @param report told of each closer's error with the part's name, in close order
 */
export function createClosers(report: (part: string, err: unknown) => void): Closers {
  const started: { part: string; close: () => Promise<void> | void }[] = [];
  return {
    add(part, close) {
      started.push({ part, close });
    },
    async close() {
      // Taken off the stack before it runs: a part closes once even when close() is called again.
      for (let next = started.pop(); next; next = started.pop()) {
        try {
          await next.close();
        } catch (err) {
          report(next.part, err);
        }
      }
    },
  };
}
