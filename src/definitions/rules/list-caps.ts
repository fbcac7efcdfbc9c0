/**
 * How many items an Algorithm document may list. A valid spec of 1 MiB with 20,000 ports costs
 * every pass seconds of YAML parsing, checking and rendering, and a Service of 20,000 ports;
 * twenty such specs made one `plan` take minutes and most of a GiB. Real services list a handful
 * of ports, a few dozen env variables, a few volumes: the caps below sit far above that, and a
 * document past one is refused at the list, before any other check of it runs, so the cost of a
 * refused spec is its parse and one walk. Pure.
 *
 * The caps (docs/spec-reference.md, "Sizes"), by the field's name wherever it sits (the spec's
 * own `env`, a container's, an init container's):
 *
 * | field | at most |
 * |---|---|
 * | `command`, `args` | 1,000 items |
 * | `env` | 500 |
 * | `ports`, `volumes`, `volumeMounts` | 100 |
 * | `tolerations`, `envFrom`, `hostAliases`, `product` | 50 |
 * | `containers`, `initContainers`, `imagePullSecrets` | 20 |
 * | `labels`, `annotations` (keys) | 100 |
 * | any other list, any other mapping's keys | 256 |
 */
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

/** Items a list (or keys a mapping) named so may hold. */
export const LIST_CAPS: Readonly<Record<string, number>> = {
  command: 1000,
  args: 1000,
  env: 500,
  ports: 100,
  volumes: 100,
  volumeMounts: 100,
  tolerations: 50,
  envFrom: 50,
  hostAliases: 50,
  product: 50,
  containers: 20,
  initContainers: 20,
  imagePullSecrets: 20,
  labels: 100,
  annotations: 100,
};

/** Items of any other list, keys of any other mapping. */
export const DEFAULT_LIST_CAP = 256;

/**
 * Every list and mapping of an Algorithm document (as parsed) longer than its cap, located at its
 * key, in document order; one walk, linear in the document's size.
 */
export function listCapProblems(value: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  const walk = (node: unknown, path: PathSegment[], name: string | undefined): void => {
    if (node === null || typeof node !== 'object') return;
    const items = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    const cap = (name !== undefined ? LIST_CAPS[name] : undefined) ?? DEFAULT_LIST_CAP;
    if (items.length > cap && path.length > 0) {
      const what = Array.isArray(node) ? 'items' : 'keys';
      out.push({
        path,
        at: 'key',
        message: `has ${items.length} ${what}; at most ${cap} (real services never come near it; docs/spec-reference.md, "Sizes")`,
      });
      return;
    }
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, [...path, i], undefined));
    else for (const [k, v] of Object.entries(node as Record<string, unknown>)) walk(v, [...path, k], k);
  };
  walk(value, [], undefined);
  return out;
}
