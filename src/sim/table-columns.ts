/**
 * The columns `kubectl get` prints per kind, and how each row's cells are read from an object, as
 * the API server's table printers define them (kubernetes `pkg/printers/internalversion/printers.go`).
 * Columns with `priority: 1` appear only with `-o wide`. Kinds without printers here get the
 * server's default: NAME, CREATED AT.
 */
import type { KubeObject, Resource } from './types.js';

/** A Table column definition (meta.k8s.io/v1 TableColumnDefinition). */
export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

type Obj = KubeObject & { spec?: any; status?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
/** Cells of one row, given `age(timestamp)` that prints a time as kubectl's age. */
type Cells = (o: Obj, age: (t: unknown) => string) => unknown[];

const col = (name: string, type = 'string', priority = 0, format = ''): Column => ({
  name,
  type,
  format,
  description: name,
  priority,
});
const name = col('Name', 'string', 0, 'name');
const ageCol = col('Age');
const wide = (n: string) => col(n, 'string', 1);
const none = (v: unknown) => (v === undefined || v === null || v === '' ? '<none>' : v);

function nodeCells(o: Obj, age: (t: unknown) => string): unknown[] {
  const conditions = (o.status?.conditions ?? []) as { type: string; status: string }[];
  const ready = conditions.find((c) => c.type === 'Ready');
  const status = [ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown'];
  if (o.spec?.unschedulable === true) status.push('SchedulingDisabled');
  const labels = o.metadata.labels ?? {};
  const roles = new Set(
    Object.keys(labels)
      .filter((k) => k.startsWith('node-role.kubernetes.io/'))
      .map((k) => k.slice('node-role.kubernetes.io/'.length))
      .filter(Boolean),
  );
  if (labels['kubernetes.io/role']) roles.add(labels['kubernetes.io/role']);
  const info = (o.status?.nodeInfo ?? {}) as Record<string, string | undefined>;
  const addresses = (o.status?.addresses ?? []) as { type: string; address: string }[];
  const address = (type: string) => addresses.find((a) => a.type === type)?.address;
  return [
    o.metadata.name,
    status.join(','),
    [...roles].sort().join(',') || '<none>',
    age(o.metadata.creationTimestamp),
    info.kubeletVersion ?? '',
    none(address('InternalIP')),
    none(address('ExternalIP')),
    info.osImage ?? '<unknown>',
    info.kernelVersion ?? '<unknown>',
    info.containerRuntimeVersion ?? '<unknown>',
  ];
}

interface ContainerStatus {
  ready?: boolean;
  restartCount?: number;
  state?: {
    running?: object;
    waiting?: { reason?: string };
    terminated?: { reason?: string; exitCode?: number; signal?: number };
  };
  lastState?: { terminated?: { finishedAt?: string } };
}

/** The pod STATUS column: phase, overridden by a container's waiting/terminated reason. */
function podStatus(o: Obj, statuses: ContainerStatus[]): string {
  let reason = String(o.status?.reason ?? o.status?.phase ?? 'Unknown');
  let running = false;
  for (const s of [...statuses].reverse()) {
    const t = s.state?.terminated;
    if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
    else if (t?.reason) reason = t.reason;
    else if (t) reason = t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode ?? 0}`;
    else if (s.ready && s.state?.running) running = true;
  }
  if (reason === 'Completed' && running) reason = 'Running';
  if (o.metadata.deletionTimestamp) reason = o.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

function podCells(o: Obj, age: (t: unknown) => string): unknown[] {
  const statuses = (o.status?.containerStatuses ?? []) as ContainerStatus[];
  const restarts = statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0);
  const last = statuses
    .map((s) => s.lastState?.terminated?.finishedAt)
    .filter((t): t is string => !!t)
    .sort()
    .pop();
  const gates = (o.spec?.readinessGates ?? []) as { conditionType: string }[];
  const conditions = (o.status?.conditions ?? []) as { type: string; status: string }[];
  const gatesReady = gates.filter((g) =>
    conditions.some((c) => c.type === g.conditionType && c.status === 'True'),
  );
  return [
    o.metadata.name,
    `${statuses.filter((s) => s.ready).length}/${(o.spec?.containers ?? []).length}`,
    podStatus(o, statuses),
    restarts > 0 && last ? `${restarts} (${age(last)} ago)` : String(restarts),
    age(o.metadata.creationTimestamp),
    none(o.status?.podIP),
    none(o.spec?.nodeName),
    none(o.status?.nominatedNodeName),
    gates.length ? `${gatesReady.length}/${gates.length}` : '<none>',
  ];
}

/** CONTAINERS, IMAGES, SELECTOR of a workload's pod template (the wide columns). */
function templateCells(o: Obj): unknown[] {
  const containers = (o.spec?.template?.spec?.containers ?? []) as { name: string; image: string }[];
  const labels = (o.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
  const exprs = (o.spec?.selector?.matchExpressions ?? []) as {
    key: string;
    operator: string;
    values?: string[];
  }[];
  const selector = [
    ...Object.entries(labels).map(([k, v]) => `${k}=${v}`),
    ...exprs.map((e) => `${e.key} ${e.operator.toLowerCase()} (${(e.values ?? []).join(',')})`),
  ].join(',');
  return [containers.map((c) => c.name).join(','), containers.map((c) => c.image).join(','), none(selector)];
}
const templateCols = [wide('Containers'), wide('Images'), wide('Selector')];

function jobStatus(o: Obj): string {
  const has = (type: string) =>
    ((o.status?.conditions ?? []) as { type: string; status: string }[]).some(
      (c) => c.type === type && c.status === 'True',
    );
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCells(
  o: Obj,
  age: (t: unknown) => string,
  durationOf: (from: string, to?: string) => string,
): unknown[] {
  const succeeded = o.status?.succeeded ?? 0;
  const parallelism = o.spec?.parallelism ?? 0;
  const completions =
    o.spec?.completions !== undefined
      ? `${succeeded}/${o.spec.completions}`
      : parallelism > 1
        ? `${succeeded}/1 of ${parallelism}`
        : `${succeeded}/1`;
  const start = o.status?.startTime as string | undefined;
  return [
    o.metadata.name,
    jobStatus(o),
    completions,
    start ? durationOf(start, o.status?.completionTime as string | undefined) : '',
    age(o.metadata.creationTimestamp),
    ...templateCells(o),
  ];
}

interface MetricSpec {
  type: string;
  resource?: { name: string; target?: MetricTarget };
  containerResource?: { name: string; target?: MetricTarget };
  pods?: { metric: { name: string }; target?: MetricTarget };
  object?: { metric: { name: string }; target?: MetricTarget };
  external?: { metric: { name: string }; target?: MetricTarget };
}
interface MetricTarget {
  type?: string;
  averageUtilization?: number;
  averageValue?: string | number;
  value?: string | number;
}

/**
 * The HPA TARGETS column as kubectl's printer formats it: `cpu: 45%/80%` (Resource and
 * ContainerResource carry the resource name), `45/80` (Pods), `12/50 (avg)` (External or Object
 * with an averageValue target), `<unknown>/…` before the first read; two metrics at most, then
 * `+ N more...`.
 */
function hpaTargets(o: Obj): string {
  const specs = (o.spec?.metrics ?? []) as MetricSpec[];
  const current = (o.status?.currentMetrics ?? []) as MetricSpec[];
  if (specs.length === 0) return '<none>';
  const parts = specs.map((m, i) => {
    const key = (m.type.charAt(0).toLowerCase() + m.type.slice(1)) as keyof MetricSpec;
    const spec = m[key] as { name?: string; target?: MetricTarget } | undefined;
    if (!spec || typeof spec !== 'object') return '<unknown type>';
    const t = spec.target ?? {};
    const c = ((current[i]?.[key] ?? {}) as { current?: MetricTarget }).current;
    if (key === 'resource' || key === 'containerResource') {
      if (t.averageValue !== undefined)
        return `${spec.name}: ${c?.averageValue ?? '<unknown>'}/${t.averageValue}`;
      const now = c?.averageUtilization !== undefined ? `${c.averageUtilization}%` : '<unknown>';
      const want = t.averageUtilization !== undefined ? `${t.averageUtilization}%` : '<auto>';
      return `${spec.name}: ${now}/${want}`;
    }
    if (key === 'pods') return `${c?.averageValue ?? '<unknown>'}/${t.averageValue}`;
    if (t.averageValue !== undefined) return `${c?.averageValue ?? '<unknown>'}/${t.averageValue} (avg)`;
    return `${c?.value ?? '<unknown>'}/${t.value}`;
  });
  return parts.length > 2
    ? `${parts.slice(0, 2).join(', ')} + ${parts.length - 2} more...`
    : parts.join(', ');
}

function bindingCells(o: Obj, age: (t: unknown) => string): unknown[] {
  const subjects = (o.subjects ?? []) as { kind: string; name: string; namespace?: string }[];
  const of = (kind: string) => subjects.filter((s) => s.kind === kind);
  const roleRef = (o.roleRef ?? {}) as { kind?: string; name?: string };
  return [
    o.metadata.name,
    `${roleRef.kind}/${roleRef.name}`,
    age(o.metadata.creationTimestamp),
    of('User')
      .map((s) => s.name)
      .join(', '),
    of('Group')
      .map((s) => s.name)
      .join(', '),
    of('ServiceAccount')
      .map((s) => `${s.namespace ?? ''}:${s.name}`)
      .join(', '),
  ];
}

function servicePorts(o: Obj): string {
  const ports = (o.spec?.ports ?? []) as { port: number; nodePort?: number; protocol?: string }[];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

function serviceExternalIp(o: Obj): string {
  const type = o.spec?.type ?? 'ClusterIP';
  const external = (o.spec?.externalIPs ?? []) as string[];
  const ingress = ((o.status?.loadBalancer?.ingress ?? []) as { ip?: string; hostname?: string }[]).map(
    (i) => i.ip ?? i.hostname,
  );
  if (type === 'ExternalName') return o.spec?.externalName ?? '<none>';
  if (type === 'LoadBalancer') {
    const all = [...ingress, ...external];
    return all.length ? all.join(',') : '<pending>';
  }
  return external.length ? external.join(',') : '<none>';
}

/** Printers by resource: the columns and a row's cells in the same order. */
export function printerFor(
  resource: Resource,
  durationOf: (from: string, to?: string) => string,
): { columns: Column[]; cells: Cells } {
  const count = (v: unknown) => Object.keys((v ?? {}) as object).length;
  switch (resource) {
    case 'nodes':
      return {
        columns: [
          name,
          col('Status'),
          col('Roles'),
          ageCol,
          col('Version'),
          wide('Internal-IP'),
          wide('External-IP'),
          wide('OS-Image'),
          wide('Kernel-Version'),
          wide('Container-Runtime'),
        ],
        cells: nodeCells,
      };
    case 'pods':
      return {
        columns: [
          name,
          col('Ready'),
          col('Status'),
          col('Restarts'),
          ageCol,
          wide('IP'),
          wide('Node'),
          wide('Nominated Node'),
          wide('Readiness Gates'),
        ],
        cells: podCells,
      };
    case 'namespaces':
      return {
        columns: [name, col('Status'), ageCol],
        cells: (o, age) => [o.metadata.name, o.status?.phase ?? '', age(o.metadata.creationTimestamp)],
      };
    case 'deployments':
      return {
        columns: [
          name,
          col('Ready'),
          col('Up-to-date', 'integer'),
          col('Available', 'integer'),
          ageCol,
          ...templateCols,
        ],
        cells: (o, age) => [
          o.metadata.name,
          `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`,
          o.status?.updatedReplicas ?? 0,
          o.status?.availableReplicas ?? 0,
          age(o.metadata.creationTimestamp),
          ...templateCells(o),
        ],
      };
    case 'replicasets':
      return {
        columns: [
          name,
          col('Desired', 'integer'),
          col('Current', 'integer'),
          col('Ready', 'integer'),
          ageCol,
          ...templateCols,
        ],
        cells: (o, age) => [
          o.metadata.name,
          o.spec?.replicas ?? 0,
          o.status?.replicas ?? 0,
          o.status?.readyReplicas ?? 0,
          age(o.metadata.creationTimestamp),
          ...templateCells(o),
        ],
      };
    case 'jobs':
      return {
        columns: [name, col('Status'), col('Completions'), col('Duration'), ageCol, ...templateCols],
        cells: (o, age) => jobCells(o, age, durationOf),
      };
    case 'horizontalpodautoscalers':
      return {
        columns: [
          name,
          col('Reference'),
          col('Targets'),
          col('MinPods'),
          col('MaxPods', 'integer'),
          col('Replicas', 'integer'),
          ageCol,
        ],
        cells: (o, age) => [
          o.metadata.name,
          `${o.spec?.scaleTargetRef?.kind}/${o.spec?.scaleTargetRef?.name}`,
          hpaTargets(o),
          o.spec?.minReplicas ?? '<unset>',
          o.spec?.maxReplicas ?? 0,
          o.status?.currentReplicas ?? 0,
          age(o.metadata.creationTimestamp),
        ],
      };
    case 'events':
      return {
        columns: [
          col('Last Seen'),
          col('Type'),
          col('Reason'),
          col('Object'),
          wide('Subobject'),
          wide('Source'),
          col('Message'),
          wide('First Seen'),
          col('Count', 'integer', 1),
          wide('Name'),
        ],
        cells: (o, age) => {
          const io = (o.involvedObject ?? {}) as { kind?: string; name?: string; fieldPath?: string };
          const source = (o.source ?? {}) as { component?: string; host?: string };
          const last = o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp;
          return [
            age(last),
            o.type ?? '',
            o.reason ?? '',
            `${String(io.kind ?? '').toLowerCase()}/${io.name ?? ''}`,
            io.fieldPath ?? '',
            [source.component ?? o.reportingComponent ?? '', source.host].filter(Boolean).join(', '),
            String(o.message ?? '').trim(),
            age(o.firstTimestamp ?? last),
            o.count ?? 1,
            o.metadata.name,
          ];
        },
      };
    case 'secrets':
      // Only the number of keys: a Secret's values never appear in a Table.
      return {
        columns: [name, col('Type'), col('Data', 'integer'), ageCol],
        cells: (o, age) => [
          o.metadata.name,
          o.type ?? 'Opaque',
          count(o.data),
          age(o.metadata.creationTimestamp),
        ],
      };
    case 'configmaps':
      return {
        columns: [name, col('Data', 'integer'), ageCol],
        cells: (o, age) => [
          o.metadata.name,
          count(o.data) + count(o.binaryData),
          age(o.metadata.creationTimestamp),
        ],
      };
    case 'services':
      return {
        columns: [
          name,
          col('Type'),
          col('Cluster-IP'),
          col('External-IP'),
          col('Port(s)'),
          ageCol,
          wide('Selector'),
        ],
        cells: (o, age) => [
          o.metadata.name,
          o.spec?.type ?? 'ClusterIP',
          none(o.spec?.clusterIP),
          serviceExternalIp(o),
          servicePorts(o),
          age(o.metadata.creationTimestamp),
          none(
            Object.entries((o.spec?.selector ?? {}) as Record<string, string>)
              .map(([k, v]) => `${k}=${v}`)
              .join(','),
          ),
        ],
      };
    case 'serviceaccounts':
      return {
        columns: [name, col('Secrets', 'integer'), ageCol],
        cells: (o, age) => [
          o.metadata.name,
          ((o.secrets ?? []) as unknown[]).length,
          age(o.metadata.creationTimestamp),
        ],
      };
    case 'leases':
      return {
        columns: [name, col('Holder'), ageCol],
        cells: (o, age) => [o.metadata.name, o.spec?.holderIdentity ?? '', age(o.metadata.creationTimestamp)],
      };
    case 'rolebindings':
    case 'clusterrolebindings':
      return {
        columns: [name, col('Role'), ageCol, wide('Users'), wide('Groups'), wide('ServiceAccounts')],
        cells: bindingCells,
      };
    default:
      return {
        columns: [name, col('Created At', 'date')],
        cells: (o) => [o.metadata.name, o.metadata.creationTimestamp ?? ''],
      };
  }
}
