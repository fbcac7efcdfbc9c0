import type { ErrorObject } from 'ajv';
import { didYouMean } from './did-you-mean.js';
import { dnsLabelMessage } from './dns-label.js';
import { imageMessage } from './image.js';
import { envNameMessage } from './env-name.js';
import { quantityMessage } from './quantity.js';
import type { PathSegment } from './yaml-documents.js';
import { NVIDIA } from '../../util/index.js';

/** One schema problem, before it is located in a file: the field path, which node, the message. */
export interface FieldProblem {
  path: PathSegment[];
  /** Point at the mapping key (`'key'`, unknown or missing fields) or at the value. */
  at: 'key' | 'value';
  message: string;
  /** The ajv keyword behind the problem (`type`, `enum`, `additionalProperties`, …), if any. */
  keyword?: string;
  /** For `type` problems: the JSON type the schema expects there. */
  expected?: string;
}

/** `/spec/env/0/name` → `['spec', 'env', 0, 'name']` (JSON Pointer, RFC 6901). */
export function pointerToPath(pointer: string, data: unknown): PathSegment[] {
  if (pointer === '') return [];
  const path: PathSegment[] = [];
  let node = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const index = Array.isArray(node) && /^\d+$/.test(seg) ? Number(seg) : undefined;
    path.push(index ?? seg);
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return path;
}

/**
 * A value as a message shows it: strings quoted, long values cut. A number YAML reads as infinite
 * (`.inf`, or a literal beyond the largest double, ~1.8e308, such as `1e400`) says so: "Infinity"
 * names nothing the author wrote.
 */
export function show(value: unknown): string {
  if (value === null) return 'an empty value';
  if (typeof value === 'number' && !Number.isFinite(value))
    return Number.isNaN(value)
      ? 'not a number (.nan)'
      : `an infinite number (${value > 0 ? '' : '-'}.inf, or a number beyond ±1.8e308)`;
  if (typeof value === 'string')
    return `the string "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
};

const FORMAT_MESSAGES: Record<string, (value: string) => string> = {
  'dns-1123-label': dnsLabelMessage,
  'k8s-quantity': quantityMessage,
  'k8s-label-key': (v) =>
    `"${v}" is not a Kubernetes label key ([prefix/]name, name ≤ 63 characters of letters, digits, "-", "_", ".")`,
  'dns-1123-subdomain': (v) =>
    `"${v}" is not a DNS-1123 subdomain (≤ 253 characters: lower-case letters, digits, "-" and ".")`,
  'k8s-namespace-pattern': (v) =>
    `"${v}" is neither a namespace (DNS-1123 label) nor a namespace prefix followed by * (team-*)`,
  'k8s-image': imageMessage,
  'k8s-env-name': envNameMessage,
  'k8s-annotation-pattern': (v) =>
    `"${v}" is not an annotation key pattern ([prefix/]name, * for any characters but "/": prometheus.io/*)`,
};

/** Messages for fields whose generic message would not say enough, by field path. */
const FIELD_MESSAGES: Record<string, (data: unknown) => string> = {
  '/spec/resources/gpus': (data) =>
    `must be a whole number of GPUs, at least 1, got ${show(data)} (${NVIDIA.resource} is not divisible)`,
};

function message(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const special = FIELD_MESSAGES[e.instancePath];
  if (special && ['type', 'minimum'].includes(e.keyword)) return special(e.data);
  switch (e.keyword) {
    case 'type': {
      const want = String(p['type']);
      const got = show(e.data);
      // `value: 32` or `value: true` where a string is meant: the quoted form is what the author wants.
      const scalar = typeof e.data === 'number' || typeof e.data === 'boolean';
      const hint = want === 'string' && scalar ? `; write it in quotes ("${String(e.data)}")` : '';
      return `must be ${TYPE_NAMES[want] ?? want}, got ${got}${hint}`;
    }
    case 'const':
      return `must be "${String(p['allowedValue'])}", got ${show(e.data)}`;
    case 'enum': {
      const allowed = (p['allowedValues'] as unknown[]).map(String);
      const guess = typeof e.data === 'string' ? didYouMean(e.data, allowed) : undefined;
      const hint = guess === undefined ? '' : `; did you mean "${guess}"?`;
      return `must be one of ${allowed.join(', ')}, got ${show(e.data)}${hint}`;
    }
    case 'format': {
      const f = FORMAT_MESSAGES[String(p['format'])];
      return f && typeof e.data === 'string' ? f(e.data) : `must be a ${String(p['format'])}`;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const op = { '>=': '≥', '<=': '≤', '>': '>', '<': '<' }[String(p['comparison'])] ?? p['comparison'];
      return `must be ${op} ${String(p['limit'])}, got ${show(e.data)}`;
    }
    case 'minLength':
      return p['limit'] === 1 ? 'must not be empty' : `must be at least ${String(p['limit'])} characters`;
    default:
      return e.message ?? e.keyword;
  }
}

/**
 * Turns ajv errors (strict mode, `allErrors`, `verbose`) into one problem per real mistake:
 * - an unknown field names the field and, when a known field is close, asks "did you mean";
 * - a missing field names the field;
 * - of several failed keywords on one value (`type` and `minimum` for `0.5`), only the first counts.
 */
export function schemaProblems(errors: readonly ErrorObject[], data: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const base = pointerToPath(e.instancePath, data);
    let problem: FieldProblem;
    if (e.keyword === 'additionalProperties') {
      const name = String((e.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const guess = didYouMean(name, known);
      const hint =
        guess !== undefined
          ? `; did you mean "${guess}"?`
          : known.length > 0
            ? `; known fields: ${known.join(', ')}`
            : '';
      problem = {
        path: [...base, name],
        at: 'key',
        message: `unknown field "${name}"${hint}`,
        keyword: e.keyword,
      };
    } else if (e.keyword === 'required') {
      const name = String((e.params as { missingProperty: string }).missingProperty);
      problem = {
        path: [...base, name],
        at: 'key',
        message: `required field "${name}" is missing`,
        keyword: e.keyword,
      };
    } else {
      problem = { path: base, at: 'value', message: message(e), keyword: e.keyword };
      if (e.keyword === 'type') problem.expected = String((e.params as { type: string }).type);
    }
    const key = JSON.stringify(problem.path);
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}
