/**
 * Which spec folders may use which namespaces (`spec.namespacesByPath`). `allowedNamespaces`
 * alone confines every spec to the same list, so with `[algorithms, team-*]` a spec in team A's
 * folder may set team B's namespace, mount team B's Secrets and take team B's Service names.
 * A binding ties folders to namespaces: `{path: 'algorithms/{team}/**', namespaces: ['team-{team}']}`
 * lets `algorithms/vision/x.yaml` use `team-vision` only, and refuses `team-vision` to every file
 * no binding matches. Pure.
 *
 * Path patterns match the spec file's repo-relative path: `*` is any run of characters but `/`,
 * `**` (a whole folder name) any folders or none, `{name}` a run of characters but `/` captured as
 * `name`. Namespace entries are names or `prefix*` patterns (as `allowedNamespaces`) in which
 * `{name}` is replaced by what the path captured.
 */
import type { NamespaceBinding } from '../types.js';
import { isNamespacePattern, matchesNamespace as matches } from './namespace-pattern.js';
import type { PathSegment } from './yaml-documents.js';

const VAR = /\{([a-z][A-Za-z0-9]*)\}/g;
const escape = (s: string) => s.replace(/[.+?^$()|[\]\\]/g, '\\$&');

/**
 * A path pattern as a RegExp (anchored) and the names it captures, or why it is not one.
 * @example compilePath('algorithms/{team}/**') → { regex: /^algorithms\/([^/]+)\/(?:.*\/)?[^/]+$/, vars: ['team'] }
 */
export function compilePath(pattern: string): { regex: RegExp; vars: string[] } | { error: string } {
  if (!pattern.startsWith('algorithms/')) return { error: 'must start with "algorithms/", where specs live' };
  const vars: string[] = [];
  const parts = pattern.split('/');
  if (parts.some((p) => p === '')) return { error: 'has an empty folder name ("//" or a trailing "/")' };
  let source = '';
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    if (part === '**') {
      source += last ? '.+' : '(?:[^/]+/)*';
      continue;
    }
    if (part.includes('**')) return { error: `"**" stands alone between "/"s, got "${part}"` };
    let seg = '';
    let at = 0;
    for (const m of part.matchAll(VAR)) {
      seg += literal(part.slice(at, m.index));
      if (vars.includes(m[1]!)) return { error: `captures {${m[1]}} twice` };
      vars.push(m[1]!);
      seg += '([^/]+)';
      at = m.index + m[0].length;
    }
    seg += literal(part.slice(at));
    if (/[{}]/.test(part.replace(VAR, '')))
      return { error: `"${part}": a capture is {name}: a letter, then letters and digits` };
    source += last ? seg : `${seg}/`;
  }
  return { regex: new RegExp(`^${source}$`), vars };
}

/** A literal part of a path pattern, `*` as any characters but `/`. */
const literal = (text: string) => escape(text).replace(/\*/g, '[^/]*');

/** The namespace pattern `entry` with every `{name}` replaced by `values[name]`. */
export function fillNamespace(entry: string, values: Readonly<Record<string, string>>): string {
  return entry.replace(VAR, (_, name: string) => values[name] ?? `{${name}}`);
}

/** The `{name}`s a namespace entry uses. */
export function namespaceVars(entry: string): string[] {
  return [...entry.matchAll(VAR)].map((m) => m[1]!);
}

/** What the bindings say of one spec file. */
export type FileBinding =
  { kind: 'none' } | { kind: 'bound'; index: number; path: string; namespaces: string[] };

/**
 * The first binding whose path matches `file`, with its namespaces filled in from the captures;
 * `none` when no binding matches (or there are none). Bindings whose path is no pattern are
 * skipped (the policy's validation reports them).
 */
export function bindingOf(file: string, bindings: readonly NamespaceBinding[] | undefined): FileBinding {
  for (const [index, b] of (bindings ?? []).entries()) {
    const compiled = compilePath(b.path);
    if ('error' in compiled) continue;
    const m = compiled.regex.exec(file);
    if (!m) continue;
    const values = Object.fromEntries(compiled.vars.map((v, i) => [v, m[i + 1]!]));
    return {
      kind: 'bound',
      index,
      path: b.path,
      namespaces: b.namespaces.map((n) => fillNamespace(n, values)),
    };
  }
  return { kind: 'none' };
}

/**
 * The namespace a spec without `metadata.namespace` runs in when its file is bound: the binding's
 * first namespace when it is a plain name, else undefined (the policy's `namespace`).
 */
export function boundDefaultNamespace(
  file: string,
  bindings: readonly NamespaceBinding[] | undefined,
): string | undefined {
  const b = bindingOf(file, bindings);
  if (b.kind === 'none') return undefined;
  const first = b.namespaces[0]!;
  return first.endsWith('*') ? undefined : first;
}

/** True when some binding's namespaces can name `namespace` (`{name}` standing for any DNS-1123 text). */
function claimed(namespace: string, bindings: readonly NamespaceBinding[]): NamespaceBinding | undefined {
  return bindings.find((b) =>
    b.namespaces.some((entry) => {
      const source = entry
        .split(VAR)
        .map((part, i) => (i % 2 === 1 ? '[a-z0-9-]+' : escape(part).replace(/\*$/, '.*')))
        .join('');
      return new RegExp(`^${source}$`).test(namespace);
    }),
  );
}

/**
 * Why the spec in `file` may not run in `namespace` by the bindings, or null when it may. A bound
 * file may use only its binding's namespaces; a file no binding matches may not use a namespace
 * some binding names; a bound file whose folder fills in no namespace name is refused whatever it
 * asks. The allow-list and the `kube-*` rule are checked apart (`namespaces.ts`).
 */
export function bindingRefusal(
  file: string,
  namespace: string,
  bindings: readonly NamespaceBinding[] | undefined,
): string | null {
  if (!bindings || bindings.length === 0) return null;
  const b = bindingOf(file, bindings);
  if (b.kind === 'bound') {
    if (b.namespaces.some((p) => isNamespacePattern(p) && matches(p, namespace))) return null;
    // A folder name that is no DNS-1123 text (`Vision`, `my_team`) fills in no namespace at all:
    // no metadata.namespace can fit, so the advice is the folder's name.
    if (!b.namespaces.some(isNamespacePattern))
      return `${file}'s folder makes no namespace: the policy's namespacesByPath[${b.index}] (${b.path}) gives it ${b.namespaces.join(', ')}, which is no namespace name (a DNS-1123 label: lower-case letters, digits and "-"); rename the folder`;
    return `namespace "${namespace}" is not for ${file}: the policy's namespacesByPath[${b.index}] (${b.path}) gives it ${b.namespaces.join(', ')}`;
  }
  const owner = claimed(namespace, bindings);
  if (!owner) return null;
  return `namespace "${namespace}" belongs to the specs of ${owner.path} (the policy's namespacesByPath); ${file} matches no entry there`;
}

/**
 * The policy's own `namespacesByPath` rules: each path is a pattern starting `algorithms/`, each
 * namespace entry uses only names its path captures and, filled in (each capture as `x`), is a
 * namespace name or `prefix*` pattern that `refusal` (`kube-*`, the controller's) does not refuse.
 * Located at the entry.
 * @param list the merged policy's `namespacesByPath`, when the schema took it
 */
export function bindingPolicyProblems(
  list: readonly NamespaceBinding[] | undefined,
  refusal: (namespace: string) => string | null,
): { path: PathSegment[]; message: string }[] {
  const out: { path: PathSegment[]; message: string }[] = [];
  (list ?? []).forEach((b, i) => {
    const at = ['spec', 'namespacesByPath', i];
    const compiled = compilePath(b.path);
    if ('error' in compiled) {
      out.push({ path: [...at, 'path'], message: `path pattern ${compiled.error}` });
      return;
    }
    b.namespaces.forEach((entry, j) => {
      const unknown = namespaceVars(entry).filter((v) => !compiled.vars.includes(v));
      const sample = fillNamespace(entry, Object.fromEntries(compiled.vars.map((v) => [v, 'x'])));
      const message = unknown.length
        ? `uses {${unknown.join('}, {')}}, which the path ${b.path} does not capture`
        : isNamespacePattern(sample)
          ? (refusal(sample) ?? undefined)
          : `"${entry}" is no namespace name or prefix* pattern (lower-case letters, digits and "-")`;
      if (message) out.push({ path: [...at, 'namespaces', j], message });
    });
  });
  return out;
}
