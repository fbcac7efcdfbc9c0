/**
 * The server-side `Table` format (meta.k8s.io/v1) that kubectl asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, so `kubectl get` prints the columns it
 * prints against a real cluster (columns per kind in `table-columns.ts`; `-o wide` shows the
 * priority-1 columns). Each row carries the object as `includeObject` asks: `Metadata` (kubectl's
 * default: a PartialObjectMetadata), `Object` (the whole object) or `None`.
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables
 */
import { printerFor } from './table-columns.js';
import type { KubeObject, Resource } from './types.js';

/** True when the Accept header asks for a meta.k8s.io/v1 Table (first choice or any choice). */
export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '')
    .split(',')
    .some((part) => /as=Table/.test(part) && /g=meta\.k8s\.io/.test(part) && /v=v1(?!beta)/.test(part));
}

/**
 * kubectl's age of a duration in seconds (apimachinery `duration.HumanDuration`): `119s`, `2m30s`
 * (under 10 minutes), `179m` (under 3 hours), `5h30m` (under 8 hours), `47h`, `2d2h` (under 8
 * days), `364d`, `2y3d` (under 8 years), `9y`. Negative → `0s`, below -1 s → `<invalid>`.
 */
export function shortAge(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const minutes = Math.floor(s / 60);
  const hours = Math.floor(s / 3600);
  const days = Math.floor(hours / 24);
  const withPart = (big: string, small: number, unit: string) =>
    small === 0 ? big : `${big}${small}${unit}`;
  if (minutes < 10) return withPart(`${minutes}m`, s % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  if (hours < 8) return withPart(`${hours}h`, minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return withPart(`${days}d`, hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8) return withPart(`${Math.floor(days / 365)}y`, days % 365, 'd');
  return `${Math.floor(days / 365)}y`;
}

/**
 * A `Table` of `items` of `resource` at `nowMs` (epoch ms, the simulated clock). `includeObject`
 * is the query parameter (`None` | `Metadata` | `Object`, default `Metadata`).
 */
export function toTable(
  resource: Resource,
  items: readonly KubeObject[],
  list: { metadata?: object },
  nowMs: number,
  includeObject: string | null = null,
): object {
  const since = (t: unknown) => {
    const ms = Date.parse(String(t ?? ''));
    return Number.isNaN(ms) ? '<unknown>' : shortAge((nowMs - ms) / 1000);
  };
  const durationOf = (from: string, to?: string) =>
    shortAge(((to ? Date.parse(to) : nowMs) - Date.parse(from)) / 1000);
  const printer = printerFor(resource, durationOf);
  const object = (o: KubeObject) =>
    includeObject === 'None'
      ? undefined
      : includeObject === 'Object'
        ? o
        : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: list.metadata ?? {},
    columnDefinitions: printer.columns,
    rows: items.map((o) => ({ cells: printer.cells(o, since), object: object(o) })),
  };
}
