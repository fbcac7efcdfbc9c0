/** The public face of `definitions`: the Algorithm and Policy definitions of a GitOps repo (schemas, YAML loading with line numbers, validation rules). */
export {
  loadRepo,
  loadPolicy,
  loadAlgorithms,
  loadDefaultPolicy,
  readYamlFiles,
  DEFAULT_POLICY_FILE,
} from './load.js';
export { parseAlgorithms, resolveAlgorithm, type ParsedAlgorithms } from './rules/algorithms.js';
export { mergePolicy, parsePolicy, parseDefaultPolicy, type ParsedPolicy } from './rules/policy.js';
export { parseRepo, type RepoFiles } from './rules/repo.js';
export { formatSpecError } from './rules/format.js';
export type { SpecFile } from './rules/yaml-documents.js';
export * from './types.js';
