/**
 * Against which policy `gpuops validate` checked the algorithms (pure). A repo's `policies/*.yaml`
 * override the shipped default field by field, and a refused policy document is left out (the
 * others still apply), so "2 valid algorithms" alone does not say whether they were checked
 * against the repo's namespaces, pod rules and limits or against the shipped default's: a policy
 * file with an error may have loosened or tightened what the algorithms were held to.
 */
import type { LoadedRepo } from '../definitions/index.js';

/** The policy the algorithms were checked against, as `--output json` carries it. */
export interface PolicyUsed {
  /** `metadata.name` of the merged policy: the last applied file's, else `default`. */
  name: string;
  /** The `policies/` files merged over the shipped default, in the order they apply. */
  files: readonly string[];
  /** The `policies/` files with an error: their refused documents were not applied. */
  refused: readonly string[];
}

/** The policy `repo` was checked against: its merged policy's name, files applied and refused. */
export function policyUsed(repo: Pick<LoadedRepo, 'policy' | 'policyFiles' | 'errors'>): PolicyUsed {
  const refused = [...new Set(repo.errors.map((e) => e.file).filter((f) => f.startsWith('policies/')))];
  return { name: repo.policy.metadata.name, files: repo.policyFiles ?? [], refused };
}

/**
 * One line saying it, e.g. `policy: demo (policies/demo.yaml over the shipped default)`, or
 * `policy: the shipped default alone; policies/demo.yaml refused (errors above), not applied`.
 */
export function policyLine(used: PolicyUsed): string {
  const base =
    used.files.length === 0
      ? `the shipped default${used.refused.length > 0 ? ' alone' : ''}`
      : `${used.name} (${used.files.join(', ')} over the shipped default)`;
  const left = used.refused.map((f) =>
    used.files.includes(f)
      ? `${f} partly refused (errors above): its documents with errors not applied`
      : `${f} refused (errors above), not applied`,
  );
  return `policy: ${[base, ...left].join('; ')}`;
}
