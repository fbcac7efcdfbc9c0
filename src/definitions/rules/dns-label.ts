/**
 * DNS-1123 labels, the names Kubernetes uses for namespaces and most objects:
 * https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names —
 * at most 63 characters, lower-case alphanumerics or `-`, starting and ending with an
 * alphanumeric. Such a name is always a safe file name and object name (no `/`, no `..`).
 */
const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

/** Longest DNS-1123 label (characters). */
export const DNS_LABEL_MAX = 63;

/** True when `name` is a DNS-1123 label of at most 63 characters. */
export function isDnsLabel(name: string): boolean {
  return name.length <= DNS_LABEL_MAX && DNS_LABEL.test(name);
}

/**
 * DNS-1123 subdomain (ServiceAccount names, a label key's prefix): at most 253 characters,
 * DNS-1123 labels joined by `.`.
 * https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-subdomain-names
 */
export function isDnsSubdomain(name: string): boolean {
  return name.length <= 253 && name.split('.').every((l) => l.length <= DNS_LABEL_MAX && DNS_LABEL.test(l));
}

/**
 * A DNS-1123 label close to `name` (`Résumé v2` → `resume-v2`, `../x` → `x`), or `undefined`
 * when nothing usable is left.
 */
export function suggestDnsLabel(name: string): string | undefined {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, DNS_LABEL_MAX)
    .replace(/^-+|-+$/g, '');
  // Only [a-z0-9-] are left, cut to 63 and trimmed of "-": a DNS-1123 label unless empty.
  return s.length > 0 && s !== name ? s : undefined;
}

/** Says why `name` is not a DNS-1123 label, with a suggestion when one exists. */
export function dnsLabelMessage(name: string): string {
  const rule =
    'must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit';
  const suggestion = suggestDnsLabel(name);
  const hint = suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
  if (name.length > DNS_LABEL_MAX) {
    return `"${name.slice(0, 20)}…" is ${name.length} characters; a name is at most ${DNS_LABEL_MAX} (DNS-1123 label)`;
  }
  return `"${name}" ${rule}${hint}`;
}

/**
 * Kubernetes label keys (`[prefix/]name`): the name part ≤ 63 characters of alphanumerics,
 * `-`, `_`, `.`, starting and ending alphanumeric; the optional prefix a DNS subdomain ≤ 253.
 * https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set
 */
export function isLabelKey(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  const nameOk = name.length <= 63 && /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
  const prefixOk = prefix === undefined || isDnsSubdomain(prefix);
  return nameOk && prefixOk;
}
