import type { ErrorObject } from 'ajv';
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- a lazy library load, no I/O of the spec's (podSpecModel)
import { createRequire } from 'node:module';
import type { PodSpec as PodSpecModel } from 'kubernetes-models/v1/PodSpec';
import { didYouMean } from './did-you-mean.js';
import { quantityMessage } from './quantity.js';
import { pointerToPath, show, type FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

/** The container name the check fills in where gpuops names the container (the spec leaves it out). */
const PLACEHOLDER = 'gpuops-placeholder';

/** The value at a JSON Pointer in `data`. */
function at(data: unknown, pointer: string): unknown {
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return node;
}

/** One message for all the ajv errors kubernetes-models reports on one value. */
function messageFor(errors: readonly ErrorObject[], value: unknown): string {
  const format = errors.find((e) => e.keyword === 'format');
  const f = format ? String((format.params as { format: string }).format) : undefined;
  if (f === 'quantity' && typeof value === 'string') return quantityMessage(value);
  if (f === 'int32' || f === 'int64') {
    const bits = f === 'int32' ? 31 : 63;
    return `must be a whole number from -2^${bits} to 2^${bits}-1 (${f}), got ${show(value)}`;
  }
  const types = errors
    .filter((e) => e.keyword === 'type')
    .map((e) => String((e.params as { type: string }).type));
  if (errors.some((e) => e.keyword === 'oneOf') && types.length > 1) {
    const hint = types.includes('number')
      ? 'a quantity such as 500m, 4 or 16Gi'
      : 'a port number or a port name';
    return `must be ${hint}, got ${show(value)}`;
  }
  const first = errors[0]!;
  const p = first.params as Record<string, unknown>;
  switch (first.keyword) {
    case 'type':
      return `must be ${types[0] === 'integer' ? 'a whole number' : `of type ${types[0]}`}, got ${show(value)}`;
    case 'enum': {
      const allowed = (p['allowedValues'] as unknown[]).map(String);
      const guess = typeof value === 'string' ? didYouMean(value, allowed) : undefined;
      return `must be one of ${allowed.join(', ')}, got ${show(value)}${guess ? `; did you mean "${guess}"?` : ''}`;
    }
    default:
      return first.message ?? first.keyword;
  }
}

let loaded: typeof PodSpecModel | undefined;

/**
 * `kubernetes-models`' PodSpec, loaded on first use only: `validate` of a repo whose specs have no
 * `template` never loads it (its schemas and ajv cost start-up time; test/cli/start.test.ts).
 */
function podSpecModel(): typeof PodSpecModel {
  loaded ??= (
    createRequire(import.meta.url)('kubernetes-models/v1/PodSpec') as { PodSpec: typeof PodSpecModel }
  ).PodSpec;
  return loaded;
}

/**
 * A partial `PodSpec` checked against the Kubernetes OpenAPI schema as `kubernetes-models`
 * compiles it (types, enums, required fields, `int32`/`int64` ranges, quantities). The containers
 * gpuops names (the first of `containers`) get a placeholder name first, and an absent
 * `containers` a placeholder container, so the only problems are the spec's own. One problem per
 * value; required fields point at their missing key.
 *
 * @param spec the value of `spec.template.spec`
 * @param base its path in the document
 */
export function podSchemaProblems(
  spec: Record<string, unknown>,
  base: readonly PathSegment[],
): FieldProblem[] {
  const filled = structuredClone(spec);
  const containers = Array.isArray(filled['containers']) ? (filled['containers'] as unknown[]) : undefined;
  if (filled['containers'] === undefined) filled['containers'] = [{ name: PLACEHOLDER }];
  const main = containers?.[0];
  if (main !== null && typeof main === 'object' && !Array.isArray(main) && !('name' in main)) {
    (main as Record<string, unknown>)['name'] = PLACEHOLDER;
  }
  let errors: ErrorObject[] = [];
  try {
    new (podSpecModel())(filled as never).validate();
  } catch (err) {
    errors = ((err as { errors?: ErrorObject[] }).errors ?? []) as ErrorObject[];
  }
  const byValue = new Map<string, ErrorObject[]>();
  const out: FieldProblem[] = [];
  for (const e of errors) {
    if (e.keyword === 'required') {
      const name = String((e.params as { missingProperty: string }).missingProperty);
      const path = [...base, ...pointerToPath(e.instancePath, filled), name];
      out.push({ path, at: 'key', message: `required field "${name}" is missing`, keyword: 'required' });
      continue;
    }
    byValue.set(e.instancePath, [...(byValue.get(e.instancePath) ?? []), e]);
  }
  for (const [pointer, errs] of byValue) {
    const path = [...base, ...pointerToPath(pointer, filled)];
    out.push({
      path,
      at: 'value',
      message: messageFor(errs, at(filled, pointer)),
      keyword: errs[0]!.keyword,
    });
  }
  return out;
}
