/** Namespace patterns of the policy (`allowedNamespaces`, `namespacesByPath`): a name, or a prefix and `*`. Pure. */

/** A DNS-1123 label, or one's start followed by `*` (`team-*`): an `allowedNamespaces` entry. */
export function isNamespacePattern(p: string): boolean {
  return /^(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?|[a-z0-9][-a-z0-9]{0,61}\*)$/.test(p);
}

/** True when `namespace` is `pattern`, or starts with a `prefix*` pattern's prefix. */
export function matchesNamespace(pattern: string, namespace: string): boolean {
  return pattern.endsWith('*') ? namespace.startsWith(pattern.slice(0, -1)) : pattern === namespace;
}
