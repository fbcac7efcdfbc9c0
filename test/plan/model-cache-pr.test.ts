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
import type { FillFailure } from '../../src/plan/fill-failure.js';
import { listFailureHolds, unlabelledHold, type FillHold } from '../../src/plan/fill-hold.js';
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
function body(
  current: string | undefined,
  state: FillState | undefined,
  failure?: Partial<FillFailure>,
): string {
  const git = readGitModel('prod', new Map(current ? [[PATH, current]] : []), 'gpuops.dev/pool');
  const placements = planPlacements([alg], new Map(), policy);
  const [input] = placementChanges({
    algorithms: [alg],
    placements,
    git,
    policy,
    templates: templates(),
    modelCacheFills: new Map(state ? [[fillKey('algorithms', job.split('/')[1]!), state]] : []),
    ...(failure
      ? {
          modelCacheFailures: new Map([
            [
              job,
              { namespace: 'algorithms', algorithm: 'llama', job, reason: null, message: null, ...failure },
            ],
          ]),
        }
      : {}),
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

describe('the placement pull request says the model cache fill failed, why, and how to retry', () => {
  const RETRY =
    'To retry, change the fill step (its image or args name a new Job, which the applier creates once merged), or delete the failed Job: Argo CD and Flux do not run a Failed Job again while it exists unchanged in Git;';
  it.each<[string, string | undefined, Partial<FillFailure> | undefined, string]>([
    [
      'a new algorithm, the Job controller gave up after backoffLimit',
      undefined,
      { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
      'has failed (BackoffLimitExceeded: Job has reached the specified backoff limit); its pods and events say more; this pull request holds no Deployment of `llama` yet',
    ],
    [
      'a running Deployment, a new fill past its deadline',
      RUNNING,
      { reason: 'DeadlineExceeded', message: null },
      'has failed (DeadlineExceeded); its pods and events say more; the Deployment of `llama` in Git stays as it is',
    ],
    [
      'a Failed condition with no reason or message',
      RUNNING,
      {},
      'has failed (no reason given); its pods and events say more',
    ],
    [
      'the reason was not read (no failure detail)',
      undefined,
      undefined,
      'has failed; its pods and events say more',
    ],
  ])('%s', (_what, current, failure, says) => {
    const text = body(current, 'Failed', failure);
    expect(text).toContain(`**The model cache fill failed**: Job \`${job}\` ${says}`);
    expect(text).toContain(RETRY);
    expect(text).not.toContain('Waiting for the model cache fill');
  });
});

describe('the placement pull request says why a fill could not be read', () => {
  /** The body with `llama`'s fill `Unknown` and `hold` as the pass read it. */
  function unknownBody(current: string | undefined, hold: FillHold | undefined): string {
    const git = readGitModel('prod', new Map(current ? [[PATH, current]] : []), 'gpuops.dev/pool');
    const [input] = placementChanges({
      algorithms: [alg],
      placements: planPlacements([alg], new Map(), policy),
      git,
      policy,
      templates: templates(),
      modelCacheFills: new Map([[job, 'Unknown' as const]]),
      ...(hold ? { modelCacheHolds: new Map([[job, hold]]) } : {}),
    });
    return buildChangeSet(input!)!.body;
  }
  const forbidden = () =>
    listFailureHolds('algorithms', { status: 403, detail: 'jobs.batch is forbidden' }, [
      { algorithm: 'llama', job },
    ])[0]!;

  it.each<[string, string | undefined, () => FillHold | undefined, string]>([
    [
      'the list answered 403: what to apply',
      undefined,
      forbidden,
      'could not be read this pass (fill Jobs could not be listed: HTTP 403: jobs.batch is forbidden — apply the gpuops-benchmark ClusterRole of this version (it grants list on batch/jobs; the RoleBinding gpuops writes in namespace algorithms binds it there)); this pull request holds no Deployment of `llama` yet',
    ],
    [
      "Git's Job without gpuops's labels, a running Deployment",
      RUNNING,
      () => unlabelledHold('algorithms', 'llama', job, 'a: b'),
      "could not be read this pass (the fill Job in Git lacks gpuops's labels (a: b): gpuops does not list it and the model cache admission policy refuses it; the placement pull request restores them); the Deployment of `llama` in Git stays as it is",
    ],
    [
      'no why known',
      undefined,
      () => undefined,
      'could not be read this pass; this pull request holds no Deployment',
    ],
  ])('%s', (_what, current, hold, says) => {
    expect(unknownBody(current, hold())).toContain(
      `**Waiting for the model cache fill**: Job \`${job}\` ${says}`,
    );
  });

  it('a hold of another Job (a stale key) is not said', () => {
    const stale = { ...forbidden(), job: 'algorithms/llama-model-cache-00000000' };
    const [input] = placementChanges({
      algorithms: [alg],
      placements: planPlacements([alg], new Map(), policy),
      git: readGitModel('prod', new Map(), 'gpuops.dev/pool'),
      policy,
      templates: templates(),
      modelCacheFills: new Map([[job, 'Unknown' as const]]),
      modelCacheHolds: new Map([[stale.job, stale]]),
    });
    expect(buildChangeSet(input!)!.body).toContain(`Job \`${job}\` could not be read this pass; `);
  });
});
