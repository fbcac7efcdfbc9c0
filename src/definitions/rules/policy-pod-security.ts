/**
 * `podSecurity` entries that can never allow anything (pure). The schema takes each as text of the
 * right alphabet, but the rule that reads it would never match it, so the platform team would
 * believe it granted what it did not, and a spec asking for it would be refused with "the policy
 * does not allow it" beside a policy that seems to:
 *
 * - `extendedResources` without a `/`: an extended resource's name carries a domain
 *   (`nvidia.com/mig-1g.10gb`; Kubernetes, "Extended resources": names outside `kubernetes.io` are
 *   fully qualified), and `*` stands for any characters but `/` (`pod-annotations.ts`), so `*` or
 *   `nvidia*` matches none; `nvidia.com/*` is the pattern meant.
 * - `sysctls` with a `*`: sysctls are allowed by name (`pod-restricted.ts`), not by pattern as the
 *   kubelet's `--allowed-unsafe-sysctls` reads them.
 * - `volumeTypes: [hostPath]`: `hostPath` has its own allowance, `podSecurity.hostPath`.
 */
import type { FieldProblem } from './schema-errors.js';

/**
 * One problem per dead `podSecurity` entry of the policy document being applied, at the entry.
 * @param p a parsed Policy document (possibly invalid; entries that are not strings are the schema's)
 */
export function podSecurityEntryProblems(p: unknown): FieldProblem[] {
  const ps = (p as { spec?: { podSecurity?: Record<string, unknown> } } | null)?.spec?.podSecurity;
  if (ps === null || typeof ps !== 'object') return [];
  const out: FieldProblem[] = [];
  const each = (field: string, why: (entry: string) => string | null) => {
    const list = ps[field];
    if (!Array.isArray(list)) return;
    list.forEach((entry, i) => {
      const message = typeof entry === 'string' ? why(entry) : null;
      if (message) out.push({ path: ['spec', 'podSecurity', field, i], at: 'value', message });
    });
  };
  each('extendedResources', (e) =>
    e.includes('/')
      ? null
      : `"${e}" matches no extended resource: their names carry a domain (nvidia.com/mig-1g.10gb) and * stands for any characters but "/"; write the domain, e.g. nvidia.com/mig-*`,
  );
  each('sysctls', (e) =>
    e.includes('*')
      ? `"${e}": sysctls are allowed by name (kernel.msgmax), not by pattern; list each one`
      : null,
  );
  each('volumeTypes', (e) =>
    e === 'hostPath' ? 'hostPath has its own allowance: set podSecurity.hostPath: true instead' : null,
  );
  return out;
}
