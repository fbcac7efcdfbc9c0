import type { LoadedRepo, Policy } from '../types.js';
import { compareSpecErrors } from './format.js';
import { parseAlgorithms } from './algorithms.js';
import { parsePolicy } from './policy.js';
import { fitStandbySets } from './standby.js';
import type { SpecFile } from './yaml-documents.js';

/** The files of a GitOps repo that gpuops reads, paths relative to the repo root. */
export interface RepoFiles {
  /** `algorithms/**.{yaml,yml}` */
  algorithms: readonly SpecFile[];
  /** `policies/*.{yaml,yml}` */
  policies: readonly SpecFile[];
}

/**
 * Reads a GitOps repo from its files (pure): merges the policies onto `defaults`, then parses the
 * algorithms with the merged policy, then checks the standby sets' algorithms against their specs
 * (`fitStandbySets`). Errors come sorted by file, line and column, and so do the warnings of
 * both (absent when none).
 */
export function parseRepo(defaults: Policy, files: RepoFiles): LoadedRepo {
  const policy = parsePolicy(defaults, files.policies);
  const algorithms = parseAlgorithms(files.algorithms, policy.policy);
  // A set's algorithm that does not fit it leaves the set, never stops its spec (standby.ts).
  const standby = fitStandbySets(policy.policy, algorithms.algorithms, files.policies);
  const errors = [...policy.errors, ...algorithms.errors, ...standby.errors].sort(compareSpecErrors);
  const warnings = [...policy.warnings, ...algorithms.warnings].sort(compareSpecErrors);
  return {
    ...(warnings.length > 0 ? { warnings } : {}),
    policy: standby.policy,
    algorithms: algorithms.algorithms,
    errors,
    names: algorithms.names,
    policyFiles: policy.applied,
    files: files.algorithms.length + files.policies.length,
  };
}
