/** The public face of `definitions`: the Algorithm and Policy definitions of a GitOps repo (schemas, YAML loading with line numbers, validation rules). */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { POOLS } from './algorithm-types.js';
export type { Algorithm, AlgorithmSpec, PodTemplate, Pool } from './algorithm-types.js';
export { outsideRoot } from './inside-root.js';
export { loadDefaultPolicy, loadRepo } from './load.js';
export { lookedAtForMisplaced, MAX_LOOKED_AT, misplacedSpecWarnings } from './misplaced-specs.js';
export type { Policy, PolicySpec, StandbySet } from './policy-types.js';
export { parseAlgorithms, resolveAlgorithm } from './rules/algorithms.js';
export { fromBenchmarkRule } from './rules/benchmark-targets.js';
export { didYouMean } from './rules/did-you-mean.js';
export { compareSpecErrors, formatSpecError } from './rules/format.js';
export { mergePolicy } from './rules/policy.js';
export { productPresenceErrors } from './rules/product-presence.js';
export { parseRepo } from './rules/repo.js';
export type { RepoFiles } from './rules/repo.js';
export { show } from './rules/schema-errors.js';
export { locate, parseDocuments } from './rules/yaml-documents.js';
export type { SpecFile } from './rules/yaml-documents.js';
export { budgetSpecFiles, isSpecFileName, MAX_FILE_BYTES, specFolderOf } from './spec-files.js';
export type { ListedFile } from './spec-files.js';
export type { LoadedRepo, ResolvedAlgorithm, ResolvedSignal, SpecError } from './types.js';
