/**
 * The placement pull request says when a Deployment waits for its model cache fill
 * (`plan/model-cache.ts` `fillWait`, `change-sets/pr-sections.ts` `fillWaitLine`): which Job, its
 * state this pass, and whether there is no Deployment yet or Git's stays as it is; nothing once the
 * fill is Complete.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { modelCacheFillName } from '../../src/manifests/model-cache.js';
import { renderWorkloadFiles } from '../../src/manifests/workloads.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { fillKey, type FillState } from '../../src/plan/model-cache.js';
import { placementChanges, planPlacements } from '../../src/plan/placement.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from '../manifests/helpers.js';

let policy: Policy;
let alg: ResolvedAlgorithm;
let job: string;
beforeAll(async () => {
  policy = await policyWith();
  alg = algorithmsFromYaml(
    [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata: {name: llama, namespace: algorithms}',
      'spec:',
      '  image: registry.example.com/ml/llama:1.0',
      '  resources: {gpus: 1}',
      '  placement: {pool: long-task}',
      '  modelCache: {claimName: llama-models, mountPath: /models, fill: {image: registry.example.com/ml/fetch:1}}',
      '',
    ].join('\n'),
    policy,
  )[0]!;
  job = `algorithms/${modelCacheFillName('llama', alg.spec.modelCache)}`;
});

const PATH = 'clusters/prod/algorithms/llama/deployment.yaml';
/** The Deployment of the running version, without the cache. */
const RUNNING = 'kind: Deployment\nspec:\n  replicas: 2\n';

/** The placement pull request's body (`buildChangeSet`, what the pass writes) for `llama` with Git's Deployment `current` and the fill's `state`. */
function body(current: string | undefined, state: FillState | undefined): string {
  const git = readGitModel('prod', new Map(current ? [[PATH, current]] : []), 'gpuops.dev/pool');
  const placements = planPlacements([alg], new Map(), policy);
  const [input] = placementChanges({
    algorithms: [alg],
    placements,
    git,
    policy,
    templates: templates(),
    modelCacheFills: new Map(state ? [[fillKey('algorithms', job.split('/')[1]!), state]] : []),
  });
  return buildChangeSet(input!)!.body;
}

describe('the placement pull request says the Deployment waits for the model cache fill', () => {
  it.each<[string, string | undefined, FillState | undefined, string]>([
    [
      'a new algorithm: the fill Job is in this pull request',
      undefined,
      undefined,
      'is in this pull request: merging it lets Argo CD or Flux create it, and it runs once; this pull request holds no Deployment of `llama` yet: the pass after the fill is Complete writes it.',
    ],
    [
      'a new algorithm, its fill running',
      undefined,
      'Running',
      'is running; this pull request holds no Deployment of `llama` yet: the pass after the fill is Complete writes it.',
    ],
    [
      'a running Deployment, a new fill failed',
      RUNNING,
      'Failed',
      'has failed: its pods and events say why; a changed fill step is a new Job; the Deployment of `llama` in Git stays as it is (its replicas go on serving) until the fill is Complete.',
    ],
    [
      'a running Deployment, its new fill not in the cluster yet',
      RUNNING,
      'Absent',
      'is not in the cluster yet (Argo CD or Flux has not applied it); the Deployment of `llama` in Git stays as it is',
    ],
    [
      'the fill could not be read',
      undefined,
      'Unknown',
      'could not be read this pass; this pull request holds no Deployment',
    ],
  ])('%s', (_what, current, state, says) => {
    expect(body(current, state)).toContain(`**Waiting for the model cache fill**: Job \`${job}\` ${says}`);
  });

  it('says nothing once the fill is Complete (the Deployment is in the pull request)', () => {
    const text = body(undefined, 'Complete');
    expect(text).not.toContain('Waiting for the model cache fill');
    expect(text).toContain(PATH);
  });

  it("says nothing when Git's Deployment already reads this fill", () => {
    const reading = renderWorkloadFiles({
      algorithm: alg,
      pool: 'long-task',
      policy: policy.spec,
      cluster: 'prod',
      templates: templates(),
    })[0]!.content!;
    expect(body(reading, undefined)).not.toContain('Waiting for the model cache fill');
  });
});
