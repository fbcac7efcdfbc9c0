/**
 * The OpenAPI documents of the simulated API server, generated from the models of
 * `@kubernetes/client-node` (their `attributeTypeMap`, itself generated from Kubernetes' OpenAPI)
 * for the kinds `resources.ts` serves:
 * - `/openapi/v3` (the index) and `/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>`:
 *   what kubectl 1.27+ reads for `kubectl explain`, for the strategic-merge patch of
 *   `kubectl apply` (`x-kubernetes-patch-merge-key`/`-strategy`, from `patch.ts`) and to learn that
 *   the server validates fields itself (the `fieldValidation` parameter of each PATCH operation);
 * - `/openapi/v2` as JSON (the same schemas under `definitions`). The real server also serves v2 as
 *   protobuf; a request that accepts only protobuf gets 406 Not Acceptable.
 * Field descriptions come from the models' doc comments when the package's `.d.ts` files are
 * readable; schemas are otherwise complete without them.
 * https://kubernetes.io/docs/concepts/overview/kubernetes-api/#openapi-interface-definition
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { listPatchStrategy } from './patch.js';
import { RESOURCES, groupVersion, type ResourceInfo } from './resources.js';

type Schema = Record<string, unknown>;
interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}
type ModelClass = { getAttributeTypeMap(): Attribute[] };

const models = k8s as unknown as Record<string, ModelClass | undefined>;

/** The client-node model class of a served kind (`V1Pod`, `V2HorizontalPodAutoscaler`, `CoreV1Event`). */
export function modelOf(info: ResourceInfo): string {
  const v = info.version.charAt(0).toUpperCase() + info.version.slice(1);
  return info.group === '' && info.kind === 'Event' ? 'CoreV1Event' : `${v}${info.kind}`;
}

/** `V1Pod` → `io.k8s.api.v1.Pod`, `CoreV1Event` → `io.k8s.api.core.v1.Event`. */
function componentName(model: string): string {
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)(.+)$/.exec(model);
  if (!m) return `io.k8s.api.${model}`;
  return ['io.k8s.api', m[1]?.toLowerCase(), m[2]!.toLowerCase(), m[3]].filter(Boolean).join('.');
}

/** Doc comments of a model's `.d.ts` (class and properties); empty when unreadable. */
function docsOf(model: string, dir: string | undefined): { text?: string; props: Map<string, string> } {
  const props = new Map<string, string>();
  if (!dir) return { props };
  let src: string;
  try {
    src = readFileSync(path.join(dir, `${model}.d.ts`), 'utf8');
  } catch {
    return { props };
  }
  const clean = (c: string) =>
    c
      .split('\n')
      .map((l) => l.replace(/^\s*\*\s?/, '').trim())
      .filter(Boolean)
      .join(' ')
      .replace(/\\(["'\\])/g, '$1');
  for (const m of src.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*'([^']+)'\??:/g))
    props.set(m[2]!, clean(m[1]!));
  const cls = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export declare class/.exec(src);
  return { text: cls ? clean(cls[1]!) : undefined, props };
}

function modelsDir(): string | undefined {
  try {
    const main = createRequire(import.meta.url).resolve('@kubernetes/client-node');
    return path.join(path.dirname(main), 'gen', 'models');
  } catch {
    return undefined;
  }
}

/** Builds component schemas reachable from some models, keyed by component name. */
class SchemaBuilder {
  readonly schemas: Record<string, Schema> = {};
  constructor(
    private readonly refPrefix: string,
    private readonly docsDir: string | undefined,
  ) {}

  /** The schema of one attribute type string of client-node (`Array<V1Container>`, `{ [key: string]: string; }`). */
  typeSchema(type: string, format: string): Schema {
    const array = /^Array<(.+)>$/.exec(type);
    if (array) return { type: 'array', items: this.typeSchema(array[1]!, format) };
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
    if (map) return { type: 'object', additionalProperties: this.typeSchema(map[1]!, format) };
    switch (type) {
      case 'string':
        return format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
      case 'number':
        return format === 'int32' || format === 'int64'
          ? { type: 'integer', format }
          : { type: 'number', ...(format ? { format } : {}) };
      case 'boolean':
        return { type: 'boolean' };
      case 'Date':
        return { type: 'string', format: 'date-time' };
      case 'IntOrString':
        return { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true };
      case 'object':
        return { type: 'object' };
      case 'any':
        return { 'x-kubernetes-preserve-unknown-fields': true };
      default:
        if (!models[type]?.getAttributeTypeMap) return { 'x-kubernetes-preserve-unknown-fields': true };
        return { $ref: this.refPrefix + this.model(type) };
    }
  }

  /** Adds a model (and every model it refers to); returns its component name. */
  model(model: string, gvk?: { group: string; version: string; kind: string }): string {
    const key = componentName(model);
    if (this.schemas[key]) return key;
    const docs = docsOf(model, this.docsDir);
    const schema: Schema = { type: 'object', ...(docs.text ? { description: docs.text } : {}) };
    this.schemas[key] = schema; // before the properties: models may refer to themselves
    const properties: Record<string, Schema> = {};
    for (const a of models[model]!.getAttributeTypeMap()) {
      const p = this.typeSchema(a.type, a.format);
      const doc = docs.props.get(a.name);
      // A description beside a `$ref` goes through `allOf`, as Kubernetes' own v3 documents do.
      if (doc && p.$ref) properties[a.baseName] = { allOf: [p], description: doc };
      else if (doc) p.description = doc;
      if (p.type === 'array') {
        const item = /^Array<(.+)>$/.exec(a.type)![1]!;
        const fields = models[item]?.getAttributeTypeMap?.().map((x) => x.baseName) ?? [];
        const strategy = listPatchStrategy(a.baseName, fields);
        if (strategy.mergeKey) {
          p['x-kubernetes-patch-merge-key'] = strategy.mergeKey;
          p['x-kubernetes-patch-strategy'] = 'merge';
        } else if (strategy.set) p['x-kubernetes-patch-strategy'] = 'merge';
      }
      properties[a.baseName] ??= p;
    }
    schema.properties = properties;
    if (gvk) schema['x-kubernetes-group-version-kind'] = [gvk];
    return key;
  }
}

const WRITE_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'pretty'];

/** The path items of one resource (collection, all-namespaces list, object), OpenAPI 3 or 2 style. */
function pathsOf(info: ResourceInfo, ref: string, v3: boolean): Record<string, Schema> {
  const gvk = { group: info.group, version: info.version, kind: info.kind };
  const base = info.group ? `/apis/${info.group}/${info.version}` : '/api/v1';
  const param = (name: string, inPath = false): Schema =>
    v3
      ? {
          name,
          in: inPath ? 'path' : 'query',
          ...(inPath ? { required: true } : {}),
          schema: { type: 'string' },
        }
      : { name, in: inPath ? 'path' : 'query', ...(inPath ? { required: true } : {}), type: 'string' };
  const okSchema = (schema: Schema): Schema =>
    v3 ? { description: 'OK', content: { 'application/json': { schema } } } : { description: 'OK', schema };
  const ok = (r: string): Schema => okSchema({ $ref: r });
  const body = (types: string[]): Schema =>
    v3
      ? {
          requestBody: {
            content: Object.fromEntries(types.map((t) => [t, { schema: { $ref: ref } }])),
            required: true,
          },
        }
      : { parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: ref } }] };
  // A list answers `<Kind>List`: `items` of the kind (inline; the real documents name the List type).
  const listOf = {
    type: 'object',
    properties: { kind: { type: 'string' }, items: { type: 'array', items: { $ref: ref } } },
  };
  const op = (action: string, verb: string, params: string[], extra: Schema = {}): Schema => {
    const { parameters: own = [], ...rest } = extra as { parameters?: Schema[] };
    const list = action === 'list' || action === 'deletecollection';
    return {
      operationId: `${verb}${info.kind}`,
      tags: [info.group || 'core'],
      parameters: [...params.map((p) => param(p)), ...own],
      responses: { '200': list ? okSchema(listOf) : ok(ref) },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      ...rest,
    };
  };
  const ns = info.namespaced ? '/namespaces/{namespace}' : '';
  const scope = [...(info.namespaced ? [param('namespace', true)] : [])];
  const collection = `${base}${ns}/${info.resource}`;
  const listParams = ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch'];
  const out: Record<string, Schema> = {
    [collection]: {
      parameters: scope,
      get: op('list', 'list', listParams),
      post: op('post', 'create', WRITE_PARAMS, body(['application/json', 'application/yaml'])),
      delete: op('deletecollection', 'deleteCollection', ['labelSelector', 'fieldSelector', 'dryRun']),
    },
    [`${collection}/{name}`]: {
      parameters: [param('name', true), ...scope],
      get: op('get', 'read', ['pretty']),
      put: op('put', 'replace', WRITE_PARAMS, body(['application/json', 'application/yaml'])),
      patch: op(
        'patch',
        'patch',
        [...WRITE_PARAMS, 'force'],
        body([
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/strategic-merge-patch+json',
          'application/apply-patch+yaml',
        ]),
      ),
      delete: op('delete', 'delete', ['dryRun', 'propagationPolicy', 'gracePeriodSeconds']),
    },
  };
  if (info.namespaced) out[`${base}/${info.resource}`] = { get: op('list', 'listAllNamespaces', listParams) };
  return out;
}

const INFO = { title: 'Kubernetes', version: 'v1.31.0' };

function build(resources: readonly ResourceInfo[], v3: boolean, docsDir: string | undefined): Schema {
  const builder = new SchemaBuilder(v3 ? '#/components/schemas/' : '#/definitions/', docsDir);
  let paths: Record<string, Schema> = {};
  for (const r of resources) {
    if (!models[modelOf(r)]) continue;
    const key = builder.model(modelOf(r), { group: r.group, version: r.version, kind: r.kind });
    paths = { ...paths, ...pathsOf(r, (v3 ? '#/components/schemas/' : '#/definitions/') + key, v3) };
  }
  return v3
    ? { openapi: '3.0.0', info: INFO, paths, components: { schemas: builder.schemas } }
    : { swagger: '2.0', info: INFO, paths, definitions: builder.schemas };
}

/** The served documents, built once per server: v2 and one v3 document per group version. */
export class OpenApiDocs {
  private v2?: string;
  private readonly v3 = new Map<string, { body: string; hash: string }>();
  private readonly docsDir = modelsDir();

  /** `/openapi/v2` as JSON text. */
  swagger(): string {
    return (this.v2 ??= JSON.stringify(build(RESOURCES, false, this.docsDir)));
  }

  /** `/openapi/v3/<api/v1 | apis/g/v>` as JSON text with its hash; undefined when not served. */
  groupVersion(prefix: string): { body: string; hash: string } | undefined {
    const cached = this.v3.get(prefix);
    if (cached) return cached;
    const served = RESOURCES.filter((r) => (r.group ? `apis/${groupVersion(r)}` : 'api/v1') === prefix);
    if (served.length === 0) return undefined;
    const body = JSON.stringify(build(served, true, this.docsDir));
    const doc = { body, hash: createHash('sha512').update(body).digest('hex').slice(0, 128).toUpperCase() };
    this.v3.set(prefix, doc);
    return doc;
  }

  /** `/openapi/v3`: the index of group versions with their URLs (`?hash=` lets clients cache). */
  index(): object {
    const prefixes = [...new Set(RESOURCES.map((r) => (r.group ? `apis/${groupVersion(r)}` : 'api/v1')))];
    return {
      paths: Object.fromEntries(
        prefixes.map((p) => [
          p,
          { serverRelativeURL: `/openapi/v3/${p}?hash=${this.groupVersion(p)!.hash}` },
        ]),
      ),
    };
  }
}
