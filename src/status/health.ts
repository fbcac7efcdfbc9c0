/**
 * The one line at the top of the status page (pure): is the fleet healthy, and if not, why. Its
 * model is data: a list of {@link HealthCause}s, each with a level, a machine reason and a human
 * message, from independent rules over {@link HealthFacts}. A part that knows another cause
 * (the watch-driven cache: "cluster cache not synced"; the Git writer: "a write refused
 * permanently") adds its own rule to {@link HEALTH_RULES} or passes its causes to
 * {@link summarizeHealth}; nothing else changes.
 */

/** `ok` < `warning` < `critical`. A page reads it as a word and a symbol, colour only adds to it. */
export type HealthLevel = 'ok' | 'warning' | 'critical';

/** One reason the fleet is not healthy. */
export interface HealthCause {
  level: Exclude<HealthLevel, 'ok'>;
  /** Machine reason, e.g. `PassStale`, `NoMetrics`, `PullRequestWaiting`. */
  reason: string;
  /** One short clause a person reads, e.g. `last pass 42 min ago`. */
  message: string;
}

/** The summary: the worst level of its causes and the line that says it. */
export interface HealthSummary {
  level: HealthLevel;
  /** `Healthy`, `Degraded` or `Unhealthy`. */
  word: string;
  /** The whole line, e.g. `Degraded: 2 algorithms have no GPU metrics (NoData) · last pass 1 min ago`. */
  line: string;
  causes: HealthCause[];
}

/** What the built-in rules read; every time is epoch seconds, every duration seconds. */
export interface HealthFacts {
  now: number;
  /** The newest pass that wrote, or null when none has. */
  passAt: number | null;
  /** A pass older than this is stale (`gpuops run` passes every 30 s by default). */
  passStaleAfterSeconds: number;
  /** Algorithms with a Deployment whose last scaling decision had no usable metrics (`NoData`). */
  algorithmsWithoutMetrics: string[];
  /**
   * Algorithms whose last scaling decision was held because the metrics store answered in part
   * (`PartialData`); absent: none.
   */
  algorithmsOnPartialMetrics?: string[];
  /** Algorithms whose benchmark failed (placement `BenchmarkFailed`). */
  failedBenchmarks: string[];
  /** Open pull requests: branch and when the cycle opened. */
  openPullRequests: { branch: string; openedAt: number }[];
  /** An open pull request waiting longer than this is called out. */
  pullRequestWaitingAfterSeconds: number;
  /**
   * Refs the Git remote refuses permanently (a protected base branch in patch mode): the ref, the
   * reason (`ProtectedBranch`, `PushDeclined`) and since when (epoch seconds). Absent: none.
   */
  writeRefusals?: { ref: string; reason: string; since: number }[];
  /**
   * Algorithms whose scaling decision holds because no node can take another replica
   * (`NoCapacity`): since when in a row (epoch seconds) and the decision's own message. Absent: none.
   */
  unplaceable?: { name: string; since: number; message: string }[];
  /**
   * How long a replica may take to start before it counts as stuck: the policy's
   * `scaling.podStartupSeconds` (seconds). A replica that cannot be placed for longer is called out.
   */
  startupAllowanceSeconds: number;
}

/**
 * Defaults of the thresholds: a pass 10 min old is stale (20 passes missed); a PR waits 24 h; a
 * replica may take the default `scaling.podStartupSeconds` (300 s) to start.
 */
export const HEALTH_DEFAULTS = {
  passStaleAfterSeconds: 600,
  pullRequestWaitingAfterSeconds: 24 * 3600,
  startupAllowanceSeconds: 300,
};

/** One rule: facts in, its causes out (none when it has nothing to say). */
export type HealthRule = (facts: HealthFacts) => HealthCause[];

/** `1 node`, `2 nodes`: a count with its noun in the right number. */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

/** A duration as a person says it: `45 s`, `12 min`, `3 h`, `2 d`. */
export function ago(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

function names(list: readonly string[]): string {
  return list.length <= 3 ? list.join(', ') : `${list.slice(0, 3).join(', ')} and ${list.length - 3} more`;
}

/** The built-in rules, in the order their causes are listed. */
export const HEALTH_RULES: readonly HealthRule[] = [
  // A refused Git write: patch mode changes nothing while it stands, a refused gpuops branch keeps
  // its pull request behind (write-back/write-refusal.ts).
  (f) =>
    (f.writeRefusals ?? []).map((r) => ({
      level: 'critical',
      reason: 'GitWriteRefused',
      message: `${r.ref} refuses gpuops's commits (${r.reason === 'ProtectedBranch' ? 'protected branch' : 'push declined by a hook'}) for ${ago(f.now - r.since)}: ${
        r.ref.startsWith('gpuops/')
          ? 'its pull request does not get what gpuops wants until gpuops may push to it'
          : 'nothing is scaled until gpuops may push or scaling.mode is pull-request'
      }`,
    })),
  (f) =>
    f.passAt === null
      ? [{ level: 'critical', reason: 'NoPass', message: 'no reconcile pass recorded yet' }]
      : f.now - f.passAt > f.passStaleAfterSeconds
        ? [{ level: 'critical', reason: 'PassStale', message: `last pass ${ago(f.now - f.passAt)} ago` }]
        : [],
  (f) =>
    f.failedBenchmarks.length === 0
      ? []
      : [
          {
            level: 'critical',
            reason: 'BenchmarkFailed',
            message: `${plural(f.failedBenchmarks.length, 'benchmark')} failed (${names(f.failedBenchmarks)})`,
          },
        ],
  // A replica that cannot be placed for longer than a start may take is not "starting": it never will
  // until a node is freed, labelled or added (the decision's own message says what it looked for).
  (f) =>
    (f.unplaceable ?? [])
      .filter((u) => f.now - u.since > f.startupAllowanceSeconds)
      .map((u) => ({
        level: 'warning',
        reason: 'NoCapacity',
        message: `${u.name} cannot place a replica for ${ago(f.now - u.since)} (NoCapacity: ${u.message})`,
      })),
  (f) =>
    f.algorithmsWithoutMetrics.length === 0
      ? []
      : [
          {
            level: 'warning',
            reason: 'NoMetrics',
            message: `no GPU metrics for ${plural(f.algorithmsWithoutMetrics.length, 'algorithm')} (${names(f.algorithmsWithoutMetrics)})`,
          },
        ],
  (f) => {
    const partial = f.algorithmsOnPartialMetrics ?? [];
    if (partial.length === 0) return [];
    return [
      {
        level: 'warning',
        reason: 'PartialMetrics',
        message: `the metrics store answered in part: ${plural(partial.length, 'algorithm')} held (${names(partial)})`,
      },
    ];
  },
  (f) => {
    const waiting = f.openPullRequests.filter((p) => f.now - p.openedAt > f.pullRequestWaitingAfterSeconds);
    if (waiting.length === 0) return [];
    const oldest = Math.min(...waiting.map((p) => p.openedAt));
    return [
      {
        level: 'warning',
        reason: 'PullRequestWaiting',
        message: `${plural(waiting.length, 'pull request')} waiting for review, the oldest for ${ago(f.now - oldest)}`,
      },
    ];
  },
];

/**
 * The summary of `causes` (from {@link healthCauses} and any others): the worst level wins; the
 * line names every cause, then the age of the last pass when the causes do not already say it.
 */
export function summarizeHealth(
  causes: readonly HealthCause[],
  facts: Pick<HealthFacts, 'now' | 'passAt'>,
): HealthSummary {
  const level: HealthLevel = causes.some((c) => c.level === 'critical')
    ? 'critical'
    : causes.length > 0
      ? 'warning'
      : 'ok';
  const word = level === 'ok' ? 'Healthy' : level === 'warning' ? 'Degraded' : 'Unhealthy';
  const parts = causes.map((c) => c.message);
  if (facts.passAt !== null && !causes.some((c) => c.reason === 'PassStale'))
    parts.push(`last pass ${ago(facts.now - facts.passAt)} ago`);
  return { level, word, line: `${word}: ${parts.join(' · ')}`, causes: [...causes] };
}

/** The causes the built-in rules find (or `rules`, to add or replace some). */
export function healthCauses(facts: HealthFacts, rules: readonly HealthRule[] = HEALTH_RULES): HealthCause[] {
  return rules.flatMap((rule) => rule(facts));
}
