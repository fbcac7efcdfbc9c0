/**
 * Label and field selectors as the Kubernetes API server parses them
 * (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors,
 * https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors/).
 */
import type { KubeObject, Resource } from './types.js';
import { SimApiError } from './types.js';

/** One parsed requirement of a label selector. */
export type LabelRequirement =
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!' };

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t.length > 0);
}

/**
 * Parses a label selector: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`,
 * comma-separated (AND). @throws SimApiError 400 BadRequest on bad syntax.
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  return splitTerms(text).map((term) => {
    let m = /^!\s*([A-Za-z0-9._/-]+)$/.exec(term);
    if (m) return { key: m[1]!, op: '!' as const };
    m = /^([A-Za-z0-9._/-]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (m) {
      const values = m[3]!.split(',').map((v) => v.trim());
      return { key: m[1]!, op: m[2] as 'in' | 'notin', values };
    }
    m = /^([A-Za-z0-9._/-]+)\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$/.exec(term);
    if (m) return { key: m[1]!, op: m[2] === '!=' ? ('!=' as const) : ('=' as const), value: m[3]! };
    m = /^([A-Za-z0-9._/-]+)$/.exec(term);
    if (m) return { key: m[1]!, op: 'exists' as const };
    throw new SimApiError(400, 'BadRequest', `unable to parse requirement: invalid label selector "${term}"`);
  });
}

/** Whether `labels` satisfy every requirement (an empty selector matches everything). */
export function matchLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case '=':
        if (!has || v !== r.value) return false;
        break;
      case '!=':
        if (has && v === r.value) return false;
        break;
      case 'in':
        if (!has || !r.values.includes(v!)) return false;
        break;
      case 'notin':
        if (has && r.values.includes(v!)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** One parsed requirement of a field selector. */
export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

/** Fields each resource supports in field selectors (besides metadata.name and metadata.namespace). */
const FIELDS: Partial<Record<Resource, string[]>> = {
  pods: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  nodes: ['spec.unschedulable'],
  namespaces: ['status.phase'],
  jobs: ['status.successful'],
  secrets: ['type'],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
};

/**
 * Parses a field selector (`f=v`, `f==v`, `f!=v`, comma-separated). Only the fields the real API
 * server supports for the resource are accepted.
 * @throws SimApiError 400 BadRequest on bad syntax or an unsupported field, as the API server does.
 */
export function parseFieldSelector(resource: Resource, text: string): FieldRequirement[] {
  const allowed = ['metadata.name', 'metadata.namespace', ...(FIELDS[resource] ?? [])];
  return splitTerms(text).map((term) => {
    const m = /^([A-Za-z0-9._]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw new SimApiError(400, 'BadRequest', `invalid field selector "${term}"`);
    const field = m[1]!;
    if (!allowed.includes(field)) {
      throw new SimApiError(400, 'BadRequest', `field label not supported: ${field}`);
    }
    return { field, op: m[2] === '!=' ? '!=' : '=', value: m[3]!.trim() };
  });
}

function fieldValue(obj: KubeObject, field: string): string {
  let cur: unknown = obj;
  for (const part of field.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null)
    return field === 'spec.unschedulable' || field === 'spec.hostNetwork' ? 'false' : '';
  return String(cur);
}

/** Whether `obj` satisfies every field requirement (a missing field reads as ''). */
export function matchFields(reqs: FieldRequirement[], obj: KubeObject): boolean {
  for (const r of reqs) {
    const v = fieldValue(obj, r.field);
    if (r.op === '=' ? v !== r.value : v === r.value) return false;
  }
  return true;
}
