/**
 * Rows of what a pass records about scaling and Git: utilization samples, decisions and pull
 * requests; cells in column order, and the rows read back.
 */
import { type Cell, fromNum, type Row, toMs } from './row-cells.js';
import type { DecisionRecord, PullRequestRecord, UtilizationSampleRecord } from './types.js';

/** The columns of `utilization_samples` gpuops writes, in the order of {@link sampleCells}. */
export const SAMPLE_COLUMNS = ['algorithm', 'namespace', 'pod', 'utilization', 'at', 'at_ms'] as const;

/**
 * A utilisation sample's cells in {@link SAMPLE_COLUMNS} order (utilisation in percent, `at_ms`:
 * epoch ms). @throws StoreError naming `saveSamples` when `at` is not an ISO-8601 time.
 */
export function sampleCells(s: UtilizationSampleRecord): Cell[] {
  return [s.algorithm, s.namespace, s.pod, s.utilization, s.at, toMs('saveSamples', 'at', s.at)];
}

/** {@link sampleCells} without the time (`at`, `at_ms`): the cells before it. */
export function sampleHeadCells(s: UtilizationSampleRecord): Cell[] {
  return [s.algorithm, s.namespace, s.pod, s.utilization];
}

/** A `utilization_samples` row read back (either dialect) as the sample that was saved. */
export function sampleFromRow(r: Row): UtilizationSampleRecord {
  return {
    algorithm: r.algorithm as string,
    namespace: r.namespace as string,
    pod: r.pod as string,
    utilization: Number(r.utilization),
    at: r.at as string,
  };
}

/** The columns of `decisions` gpuops writes, in the order of {@link decisionCells}. */
export const DECISION_COLUMNS = [
  'kind',
  'subject',
  'action',
  'reason',
  'message',
  'replicas_from',
  'replicas_to',
  'utilization',
  'ready_pods',
  'at',
  'at_ms',
] as const;

/**
 * A decision's cells in {@link DECISION_COLUMNS} order (`at_ms`: epoch ms).
 * @throws StoreError naming `recordDecision` when `at` is not an ISO-8601 time.
 */
export function decisionCells(d: DecisionRecord): Cell[] {
  const cells = decisionHeadCells(d);
  cells.push(d.at, toMs('recordDecision', 'at', d.at));
  return cells;
}

/** {@link decisionCells} without the time (`at`, `at_ms`): the cells before it. */
export function decisionHeadCells(d: DecisionRecord): Cell[] {
  return [
    d.kind,
    d.subject,
    d.action,
    d.reason,
    d.message,
    d.replicasFrom,
    d.replicasTo,
    d.utilization,
    d.readyPods ?? null,
  ];
}

/**
 * A `decisions` row read back (either dialect) as the decision that was recorded: `readyPods`
 * only when `ready_pods` holds one (a record written without it reads back without it).
 */
export function decisionFromRow(r: Row): DecisionRecord {
  const readyPods = fromNum(r.ready_pods);
  return {
    kind: r.kind as DecisionRecord['kind'],
    subject: r.subject as string,
    action: r.action as string,
    reason: r.reason as string,
    message: r.message as string,
    replicasFrom: fromNum(r.replicas_from),
    replicasTo: fromNum(r.replicas_to),
    utilization: fromNum(r.utilization),
    ...(readyPods === null ? {} : { readyPods }),
    at: r.at as string,
  };
}

/**
 * `d` as the SQLite store reads it back (`decisionFromRow` of its row), for a reconciler that keeps
 * the records it wrote instead of reading them (`Store.decisionsMark`): every number is stored as
 * the double it is (sqlite-batch-insert.ts) but −0, which reads back as 0, and a NaN utilisation,
 * stored as NULL; `readyPods` only when it holds one. `d` itself when nothing differs (the usual
 * case), else a copy.
 */
export function decisionAsStored(d: DecisionRecord): DecisionRecord {
  const u = d.utilization;
  const oddUtilization = u !== null && (u !== u || Object.is(u, -0));
  const oddReady =
    'readyPods' in d && (d.readyPods === undefined || d.readyPods === null || Object.is(d.readyPods, -0));
  const oddReplicas = Object.is(d.replicasFrom, -0) || Object.is(d.replicasTo, -0);
  if (!oddUtilization && !oddReady && !oddReplicas) return d;
  const { readyPods, ...rest } = d;
  const zero = (x: number | null) => (x === null || x !== x ? null : x + 0);
  return {
    ...rest,
    replicasFrom: zero(d.replicasFrom),
    replicasTo: zero(d.replicasTo),
    utilization: zero(u),
    ...(readyPods === undefined || readyPods === null ? {} : { readyPods: readyPods + 0 }),
  };
}

/** The columns of `pull_requests` gpuops writes, in the order of {@link pullRequestCells}. */
export const PULL_REQUEST_COLUMNS = [
  'cluster',
  'branch',
  'kind',
  'subject',
  'title',
  'body',
  'desired_hash',
  'number',
  'url',
  'state',
  'updated_at',
  'updated_at_ms',
] as const;

/**
 * A pull request's cells in {@link PULL_REQUEST_COLUMNS} order (`updated_at_ms`: epoch ms).
 * @throws StoreError naming `upsertPullRequest` when `updatedAt` is not an ISO-8601 time.
 */
export function pullRequestCells(p: PullRequestRecord): Cell[] {
  return [
    p.cluster,
    p.branch,
    p.kind,
    p.subject,
    p.title,
    p.body,
    p.desiredHash,
    p.number,
    p.url,
    p.state,
    p.updatedAt,
    toMs('upsertPullRequest', 'updatedAt', p.updatedAt),
  ];
}

/**
 * What a pull request is, as read from a row of `pull_requests` or of `pull_request_history` (both
 * tables hold these columns): its branch and the change it carries.
 */
export function pullRequestWhat(
  r: Row,
): Pick<PullRequestRecord, 'cluster' | 'branch' | 'kind' | 'subject' | 'title' | 'body'> {
  return {
    cluster: r.cluster as string,
    branch: r.branch as string,
    kind: r.kind as string,
    subject: r.subject as string,
    title: r.title as string,
    body: r.body as string,
  };
}

/** Where a pull request stands on its host, as read from a row of either table (see {@link pullRequestWhat}). */
export function pullRequestOnHost(r: Row): Pick<PullRequestRecord, 'number' | 'url' | 'state'> {
  return {
    number: fromNum(r.number),
    url: (r.url as string | null) ?? null,
    state: r.state as PullRequestRecord['state'],
  };
}

/** A `pull_requests` row read back (either dialect) as the record that was upserted. */
export function pullRequestFromRow(r: Row): PullRequestRecord {
  return {
    ...pullRequestWhat(r),
    desiredHash: r.desired_hash as string,
    ...pullRequestOnHost(r),
    updatedAt: r.updated_at as string,
  };
}

/** `INSERT … ON CONFLICT (cluster, branch) DO UPDATE` body, the same in both dialects. */
export function pullRequestUpsertTail(): string {
  return `ON CONFLICT (cluster, branch) DO UPDATE SET ${PULL_REQUEST_COLUMNS.filter(
    (c) => c !== 'cluster' && c !== 'branch',
  )
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;
}

/** The read of one branch's pull request record (`cluster`, `branch`: the dialect's placeholders). */
export const PULL_REQUEST_OF_BRANCH_SQL = (cluster: string, branch: string): string =>
  `SELECT * FROM pull_requests WHERE cluster = ${cluster} AND branch = ${branch}`;
