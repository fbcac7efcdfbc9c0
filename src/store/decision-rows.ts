/**
 * Rows of what a pass records about scaling and Git: utilization samples, decisions and pull
 * requests; cells in column order, and the rows read back.
 */
import { type Cell, fromNum, type Row, toMs } from './row-cells.js';
import type { DecisionRecord, PullRequestRecord, UtilizationSampleRecord } from './types.js';

export const SAMPLE_COLUMNS = ['algorithm', 'namespace', 'pod', 'utilization', 'at', 'at_ms'] as const;

export function sampleCells(s: UtilizationSampleRecord): Cell[] {
  return [s.algorithm, s.namespace, s.pod, s.utilization, s.at, toMs('saveSamples', 'at', s.at)];
}

/** {@link sampleCells} without the time (`at`, `at_ms`): the cells before it. */
export function sampleHeadCells(s: UtilizationSampleRecord): Cell[] {
  return [s.algorithm, s.namespace, s.pod, s.utilization];
}

export function sampleFromRow(r: Row): UtilizationSampleRecord {
  return {
    algorithm: r.algorithm as string,
    namespace: r.namespace as string,
    pod: r.pod as string,
    utilization: Number(r.utilization),
    at: r.at as string,
  };
}

export const DECISION_COLUMNS = [
  'kind',
  'subject',
  'action',
  'reason',
  'message',
  'replicas_from',
  'replicas_to',
  'utilization',
  'at',
  'at_ms',
] as const;

export function decisionCells(d: DecisionRecord): Cell[] {
  const cells = decisionHeadCells(d);
  cells.push(d.at, toMs('recordDecision', 'at', d.at));
  return cells;
}

/** {@link decisionCells} without the time (`at`, `at_ms`): the cells before it. */
export function decisionHeadCells(d: DecisionRecord): Cell[] {
  return [d.kind, d.subject, d.action, d.reason, d.message, d.replicasFrom, d.replicasTo, d.utilization];
}

export function decisionFromRow(r: Row): DecisionRecord {
  return {
    kind: r.kind as DecisionRecord['kind'],
    subject: r.subject as string,
    action: r.action as string,
    reason: r.reason as string,
    message: r.message as string,
    replicasFrom: fromNum(r.replicas_from),
    replicasTo: fromNum(r.replicas_to),
    utilization: fromNum(r.utilization),
    at: r.at as string,
  };
}

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
