/**
 * How many Ready pods a scaling decision judged its utilisation over, written into the decision's
 * message by `decideOne` ("over S of R Ready pod(s)": S pods with a sample of R Ready) and read back
 * from recorded decisions by `recentPeak` (history.ts). The decision record has no column for the
 * Ready count, so the message carries it; both sides use this one module, so the text and its
 * reading cannot drift apart.
 */

/** "over S of R Ready pod(s)": `sampled` (S) pods with a GPU sample of `ready` (R) Ready pods. */
export function judgedOver(sampled: number, ready: number): string {
  return `over ${sampled} of ${ready} Ready pod(s)`;
}

const JUDGED_OVER = /\bover \d+ of (\d+) Ready pod\(s\)/;

/** The Ready pod count (R) of a message that {@link judgedOver} wrote into; null when it has none. */
export function readyPodsJudged(message: string): number | null {
  const m = JUDGED_OVER.exec(message);
  return m ? Number(m[1]) : null;
}
