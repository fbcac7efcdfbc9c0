/**
 * The server-side `Table` format (meta.k8s.io/v1) that kubectl asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, so `kubectl get` prints the columns it
 * prints against a real cluster: nodes NAME, STATUS, ROLES, AGE, VERSION; pods NAME, READY,
 * STATUS, RESTARTS, AGE; other kinds NAME, AGE (the API server's default).
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables
 */
import type { KubeObject } from './types.js';

/** True when the Accept header asks for a meta.k8s.io/v1 Table (first choice or any choice). */
export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '')
    .split(',')
    .some((part) => /as=Table/.test(part) && /g=meta\.k8s\.io/.test(part) && /v=v1(?!beta)/.test(part));
}

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const col = (name: string, type = 'string', format = '', priority = 0): Column => ({
  name,
  type,
  format,
  description: name,
  priority,
});

/** `5d`, `3h`, `12m`, `40s`: kubectl's short age (HumanDuration, coarse). */
export function shortAge(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s}s`;
  if (s < 3600 * 3) return `${Math.floor(s / 60)}m`;
  if (s < 86400 * 2) return `${Math.floor(s / 3600)}h`;
  if (s < 86400 * 365 * 2) return `${Math.floor(s / 86400)}d`;
  return `${Math.floor(s / (86400 * 365))}y`;
}

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

function age(o: Obj, nowMs: number): string {
  const t = Date.parse(String(o.metadata.creationTimestamp ?? ''));
  return Number.isNaN(t) ? '<unknown>' : shortAge((nowMs - t) / 1000);
}

function nodeCells(o: Obj, nowMs: number): unknown[] {
  const conditions = (o.status?.conditions ?? []) as { type: string; status: string }[];
  const ready = conditions.find((c) => c.type === 'Ready');
  const status = [ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown'];
  if (o.spec?.unschedulable === true) status.push('SchedulingDisabled');
  const roles = Object.keys(o.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .filter(Boolean)
    .sort();
  const info = (o.status?.nodeInfo ?? {}) as { kubeletVersion?: string };
  return [
    o.metadata.name,
    status.join(','),
    roles.join(',') || '<none>',
    age(o, nowMs),
    info.kubeletVersion ?? '',
  ];
}

function podCells(o: Obj, nowMs: number): unknown[] {
  const containers = ((o.spec?.containers ?? []) as unknown[]).length;
  const statuses = (o.status?.containerStatuses ?? []) as {
    ready?: boolean;
    restartCount?: number;
    state?: { waiting?: { reason?: string }; terminated?: { reason?: string } };
  }[];
  const ready = statuses.filter((s) => s.ready).length;
  const restarts = statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0);
  const reason = o.metadata.deletionTimestamp
    ? 'Terminating'
    : (statuses.map((s) => s.state?.waiting?.reason ?? s.state?.terminated?.reason).find(Boolean) ??
      (o.status?.reason as string | undefined) ??
      (o.status?.phase as string | undefined) ??
      'Unknown');
  return [o.metadata.name, `${ready}/${containers}`, reason, restarts, age(o, nowMs)];
}

/**
 * A `Table` of `items` of `resource` at `nowMs` (epoch ms). Each row carries the object as
 * PartialObjectMetadata (kubectl's default `includeObject=Metadata`).
 */
export function toTable(
  resource: string,
  items: readonly KubeObject[],
  list: { metadata?: object },
  nowMs: number,
): object {
  const [columns, cells]: [Column[], (o: Obj) => unknown[]] =
    resource === 'nodes'
      ? [
          [col('Name', 'string', 'name'), col('Status'), col('Roles'), col('Age'), col('Version')],
          (o) => nodeCells(o, nowMs),
        ]
      : resource === 'pods'
        ? [
            [
              col('Name', 'string', 'name'),
              col('Ready'),
              col('Status'),
              col('Restarts', 'integer'),
              col('Age'),
            ],
            (o) => podCells(o, nowMs),
          ]
        : [
            [col('Name', 'string', 'name'), col('Created At', 'date')],
            (o) => [o.metadata.name, o.metadata.creationTimestamp ?? ''],
          ];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: list.metadata ?? {},
    columnDefinitions: columns,
    rows: items.map((o) => ({
      cells: cells(o as Obj),
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
