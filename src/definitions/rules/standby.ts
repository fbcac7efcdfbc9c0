/**
 * The rules of a policy's standby sets that a schema cannot say (pure; docs/standby.md).
 *
 * Within the policy (a problem of the document, reported and that document left out like any
 * other policy problem):
 * - set names are unique: the name is the Deployment's (`gpuops-standby-<name>`) and its file's
 *   folder, so two sets of one name would write one file twice;
 * - an algorithm is in one set at most: a claim must know which set's pod to take;
 * - `scaling.engine` is `gpuops`: a HorizontalPodAutoscaler counts only its Deployment's replicas
 *   and never a claimed pod, so claims are for engine `gpuops` alone.
 *
 * Across the policy and the Algorithm specs ({@link fitStandbySets}): every algorithm of a set runs
 * in the set's namespace (a pod cannot change namespace, and the claim grant is bound there only)
 * and asks for the set's GPU count per pod (a standby pod holds that many) of the GPU vendor of the
 * set's first algorithm that fits (`spec.gpu.vendor`: a standby pod holds one vendor's GPUs,
 * `nvidia.com/gpu` or `amd.com/gpu`). An algorithm that does
 * not fit is reported at `spec.standby[i].algorithms[j]` of the policy document that declares the
 * sets and is left out of its set (it scales on the cold path, as without standby); the algorithm,
 * the set's other algorithms and the other sets go on.
 */
import type { Policy, ResolvedAlgorithm, SpecError, StandbySet } from '../types.js';
import { vendorById } from '../../util/index.js';
import { locateProblem } from './document.js';
import type { FieldProblem } from './schema-errors.js';
import { formatPath, parseDocuments, type ParsedDocument, type SpecFile } from './yaml-documents.js';

type RawSet = { name?: unknown; algorithms?: unknown };

/**
 * The in-policy problems of `spec.standby` of the merged policy `p` (possibly invalid); none while
 * the schema finds a problem in `spec.standby` or `spec.scaling.engine`.
 * @param override the document being applied: the engine rule is located at `spec.standby` when it
 *   sets the sets, else at `spec.scaling.engine`
 */
export function standbyPolicyProblems(
  p: unknown,
  override: unknown,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const spec = (p as { spec?: { standby?: unknown; scaling?: { engine?: unknown } } } | null)?.spec;
  const sets = spec?.standby;
  if (!Array.isArray(sets) || sets.length === 0) return [];
  if (schema.some((s) => s.path[1] === 'standby')) return [];
  const out: FieldProblem[] = [];
  const names = new Map<string, number>();
  const owner = new Map<string, string>();
  (sets as RawSet[]).forEach((set, i) => {
    const name = String(set.name);
    const first = names.get(name);
    if (first !== undefined)
      out.push({
        path: ['spec', 'standby', i, 'name'],
        at: 'value',
        message: `standby set "${name}" is already declared at spec.standby[${first}]: both would write Deployment gpuops-standby-${name}; give each set its own name`,
      });
    else names.set(name, i);
    (set.algorithms as string[]).forEach((alg, j) => {
      const other = owner.get(alg);
      if (other === undefined) owner.set(alg, `${name}" (spec.standby[${i}]`);
      else
        out.push({
          path: ['spec', 'standby', i, 'algorithms', j],
          at: 'value',
          message: `algorithm "${alg}" is already in standby set "${other}): a claim takes from one set; list it once`,
        });
    });
  });
  const engine = spec?.scaling?.engine;
  if (engine === 'hpa' && !schema.some((s) => s.path[1] === 'scaling')) {
    const setsHere = (override as { spec?: { standby?: unknown } } | null)?.spec?.standby !== undefined;
    out.push({
      path: setsHere ? ['spec', 'standby'] : ['spec', 'scaling', 'engine'],
      at: setsHere ? 'key' : 'value',
      message:
        "standby sets need scaling.engine: gpuops (it is hpa): a HorizontalPodAutoscaler counts only its Deployment's replicas, never a claimed pod",
    });
  }
  return out;
}

/**
 * Why `alg` cannot be served by `set`, or null when it can. `first` is the set's first algorithm
 * that fits (in its declared order), whose GPU vendor the set's standby pods ask for
 * (`standbyVendor`): a standby holds one vendor's GPUs, so an algorithm of another vendor is no
 * pod it can become.
 */
function misfit(set: StandbySet, alg: ResolvedAlgorithm, first: ResolvedAlgorithm | null): string | null {
  const where = `algorithm "${alg.name}" (${alg.source.file}:${alg.source.line})`;
  if (alg.namespace !== set.namespace)
    return `${where} runs in namespace "${alg.namespace}", not the set's "${set.namespace}": a pod cannot change namespace, so it is left out of standby set "${set.name}" and scales on the cold path`;
  if (alg.spec.resources.gpus !== set.gpus)
    return `${where} asks for ${alg.spec.resources.gpus} GPU(s) per pod, a standby pod of set "${set.name}" holds ${set.gpus}: it is left out of the set and scales on the cold path`;
  const vendor = vendorById(alg.spec.gpu?.vendor).resource;
  const setVendor = first && vendorById(first.spec.gpu?.vendor).resource;
  if (setVendor && vendor !== setVendor)
    return `${where} asks for ${vendor}, a standby pod of set "${set.name}" holds ${setVendor} (the GPUs of its first algorithm "${first.name}", ${first.source.file}:${first.source.line}): one set serves one GPU vendor, so it is left out of the set and scales on the cold path; put it in a set of its own`;
  return null;
}

/**
 * The policy document whose `spec.standby` the merged policy holds: the last one, in the order
 * documents apply, that sets it to the same value; null when none (the shipped default's).
 */
function declaringDocument(policy: Policy, files: readonly SpecFile[]): ParsedDocument | null {
  const want = JSON.stringify(policy.spec.standby);
  let found: ParsedDocument | null = null;
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
    for (const doc of parseDocuments(file).documents) {
      const sets = (doc.value as { spec?: { standby?: unknown } } | null)?.spec?.standby;
      if (sets !== undefined && JSON.stringify(sets) === want) found = doc;
    }
  return found;
}

/**
 * Checks each standby set's algorithms against their specs (see the module comment): the policy
 * with every misfit left out of its set, and one located error per misfit. An algorithm a set
 * lists but no valid spec defines is no error (its spec may be broken, reported on its own, or not
 * written yet); it is served once it fits.
 * @param policyFiles the repo's `policies/*.yaml`, to locate the errors
 */
export function fitStandbySets(
  policy: Policy,
  algorithms: readonly ResolvedAlgorithm[],
  policyFiles: readonly SpecFile[],
): { policy: Policy; errors: SpecError[] } {
  const sets = policy.spec.standby ?? [];
  const byName = new Map(algorithms.map((a) => [a.name, a]));
  const problems: FieldProblem[] = [];
  const fitted = sets.map((set, i) => {
    let first: ResolvedAlgorithm | null = null;
    const kept = set.algorithms.filter((name, j) => {
      const alg = byName.get(name);
      const why = alg ? misfit(set, alg, first) : null;
      if (why) problems.push({ path: ['spec', 'standby', i, 'algorithms', j], at: 'value', message: why });
      else first ??= alg ?? null;
      return why === null;
    });
    return kept.length === set.algorithms.length ? set : { ...set, algorithms: kept };
  });
  if (problems.length === 0) return { policy, errors: [] };
  const doc = declaringDocument(policy, policyFiles);
  const errors = problems.map((p) =>
    doc
      ? locateProblem(doc, p)
      : { file: 'policies/', line: 0, column: 0, field: formatPath(p.path), message: p.message },
  );
  return { policy: { ...policy, spec: { ...policy.spec, standby: fitted } }, errors };
}
