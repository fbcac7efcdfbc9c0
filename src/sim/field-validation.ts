/**
 * Server-side field validation (the `fieldValidation` query parameter of create, update and patch;
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation): fields the kind
 * does not declare are found with the models of `@kubernetes/client-node`. `Strict` (what kubectl
 * sends by default) rejects them with 400 BadRequest, worded as kube-apiserver's strict decoding
 * error; `Warn` (the server's default) answers with a `Warning` header per field; `Ignore` says
 * nothing. Deviation: the real server also drops unknown fields before storing under Warn/Ignore;
 * the simulator keeps them.
 */
import * as k8s from '@kubernetes/client-node';
import { modelOf } from './openapi.js';
import type { ResourceInfo } from './resources.js';
import { SimApiError } from './types.js';

type Attribute = { baseName: string; type: string };
const models = k8s as unknown as Record<string, { getAttributeTypeMap?(): Attribute[] } | undefined>;

function walk(type: string, value: unknown, at: string, out: string[]): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((v, i) => walk(array[1]!, v, `${at}[${i}]`, out));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value === 'object' && !Array.isArray(value))
      for (const [k, v] of Object.entries(value)) walk(map[1]!, v, `${at}[${k}]`, out);
    return;
  }
  const attrs = models[type]?.getAttributeTypeMap?.();
  if (!attrs || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const a = attrs.find((x) => x.baseName === k);
    const path = at ? `${at}.${k}` : k;
    if (!a) out.push(path);
    else walk(a.type, v, path, out);
  }
}

/** Paths of the fields of `obj` its kind does not declare (`spec.replica`, `spec.containers[0].imagee`). */
export function unknownFields(info: ResourceInfo, obj: unknown): string[] {
  const out: string[] = [];
  if (models[modelOf(info)]) walk(modelOf(info), obj, '', out);
  return out;
}

/**
 * Checks `obj` as the `fieldValidation` parameter asks. Returns the `Warning` header values to send
 * (empty when none). @throws SimApiError 400 under `Strict` when a field is unknown.
 */
export function validateFields(info: ResourceInfo, obj: unknown, url: URL, verb = 'decoding'): string[] {
  const mode = url.searchParams.get('fieldValidation') ?? 'Warn';
  if (mode === 'Ignore') return [];
  const unknown = unknownFields(info, obj);
  if (unknown.length === 0) return [];
  if (mode === 'Strict') {
    throw new SimApiError(
      400,
      'BadRequest',
      `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: strict ${verb} error: ${unknown
        .map((f) => `unknown field "${f}"`)
        .join(', ')}`,
    );
  }
  return unknown.map((f) => `299 - "unknown field \\"${f}\\""`);
}
