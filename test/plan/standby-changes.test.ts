/**
 * The standby step of the pass: each declared set becomes the subject `standby/<set>` with its
 * Deployment's file, sized `ceil(β·√ΣL / (gpus × max/100))` on the load the scaling step attributed
 * to the algorithms it serves; no data never shrinks it; a set the policy drops is deleted, but
 * not while a policy file has an error.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { StandbySet } from '../../src/definitions/types.js';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { standbyFile } from '../../src/manifests/standby.js';
import { standbyChanges, type StandbyChangesInput } from '../../src/plan/standby-changes.js';
import { policyWith } from '../benchmark/fixtures.js';
import { STANDBY_SET } from '../support/standby-policy.js';

const SET: StandbySet = STANDBY_SET;
const PATH = 'clusters/prod/standby/llm/deployment.yaml';

const policy = await policyWith((p) => {
  p.standby = [SET];
  p.scaling.headroomFactor = 1;
  p.scaling.utilization = { min: 30, max: 80 };
});

const pods = (namespace: string, ...utilization: number[]) =>
  utilization.map((u) => ({ namespace, utilization: u }));

function input(o: Partial<StandbyChangesInput> = {}): StandbyChangesInput {
  return {
    cluster: 'prod',
    policy,
    git: { files: new Map() },
    samples: new Map(),
    whole: true,
    policyErrors: false,
    ...o,
  };
}

const replicasOf = (content: string | null) =>
  (parse(content!) as { spec: { replicas: number } }).spec.replicas;

describe('the standby subject of a pass', () => {
  it.each([
    // [case, samples (algorithm → percent per pod), set override, pods]
    ['no load: no standby', {}, {}, 0],
    ['ΣL 2.56 GPUs: √2.56 / 0.8 = 2.0 → 2', { bert: pods('algorithms', 100, 100, 56) }, {}, 2],
    ['ΣL 2.57 GPUs: just above → 3', { bert: pods('algorithms', 100, 100, 57) }, {}, 3],
    [
      'both algorithms add up (bert 1.0 + llama 1.57)',
      { bert: pods('algorithms', 100), llama: pods('algorithms', 100, 57) },
      {},
      3,
    ],
    [
      'a pod in another namespace is not the set load',
      { bert: [...pods('algorithms', 100, 100, 56), ...pods('vision', 100)] },
      {},
      2,
    ],
    [
      'an algorithm outside the set is not its load',
      { bert: pods('algorithms', 100, 100, 56), resnet: pods('algorithms', 100) },
      {},
      2,
    ],
    [
      '2-GPU pods: load counts 2 GPUs a pod, and a pod holds 1.6',
      { bert: pods('algorithms', 64) },
      { gpus: 2 },
      1,
    ],
    [
      'the set β replaces the policy one',
      { bert: pods('algorithms', 100, 100, 56) },
      { headroomFactor: 0.5 },
      1,
    ],
  ] as const)('%s', (_, samples, over, expected) => {
    const set = { ...SET, ...over };
    const p = structuredClone(policy);
    p.spec.standby = [set];
    const [cs] = standbyChanges(input({ policy: p, samples: new Map(Object.entries(samples)) }));
    expect(cs).toMatchObject({ kind: 'standby', subject: 'llm' });
    expect(cs!.files.map((f) => f.path)).toEqual([PATH]);
    expect(replicasOf(cs!.files[0]!.content)).toBe(expected);
    expect(cs!.standby?.replicas).toEqual({ from: null, to: expected });
  });

  it.each([
    // [Git's pods, measured load gives, whole reading, planned]
    [5, 2, true, 2],
    [5, 2, false, 5],
    [1, 3, false, 3],
    [null, 3, true, 3],
  ] as const)('Git holds %s, the load asks %s, whole reading %s → %s pods', (git, asked, whole, to) => {
    const files = new Map(git === null ? [] : [[PATH, standbyFile('prod', SET, policy.spec, git).content!]]);
    const load =
      asked === 2 ? pods('algorithms', 100, 100, 56) : asked === 3 ? pods('algorithms', 100, 100, 57) : [];
    const [cs] = standbyChanges(input({ git: { files }, whole, samples: new Map([['bert', load]]) }));
    expect(replicasOf(cs!.files[0]!.content)).toBe(to);
    expect(cs!.standby).toMatchObject({
      replicas: { from: git, to },
      loadGpus: whole ? expect.any(Number) : null,
    });
  });

  it('a set Git does not hold yet waits for a whole reading', () => {
    const samples = new Map([['bert', pods('algorithms', 100, 100, 57)]]);
    expect(standbyChanges(input({ samples, whole: false }))).toEqual([]);
    expect(standbyChanges(input({ samples, whole: true }))).toHaveLength(1);
  });

  it('opens one pull request per set on gpuops/<cluster>/standby/<set>, none when Git holds the file', () => {
    const samples = new Map([['bert', pods('algorithms', 100, 100, 57)]]);
    const cs = buildChangeSet(standbyChanges(input({ samples }))[0]!)!;
    expect(cs.branch).toBe('gpuops/prod/standby/llm');
    expect(cs.title).toBe('gpuops(prod): keep 3 standby pods of set llm on short-task');
    expect(cs.body).toContain('ceil(1 × √2.57 / (1 × 80 %)) = 3 pods');
    const files = new Map([[PATH, cs.files[0]!.content!]]);
    expect(buildChangeSet(standbyChanges(input({ samples, git: { files } }))[0]!)).toBeNull();
    const fewer = new Map([['bert', pods('algorithms', 100, 100, 56)]]);
    const resized = buildChangeSet(standbyChanges(input({ samples: fewer, git: { files } }))[0]!)!;
    expect(resized.title).toBe('gpuops(prod): resize standby set llm on short-task from 3 to 2 pods');
  });

  it('a set the policy dropped is deleted, unless a policy file has an error', () => {
    const p = structuredClone(policy);
    p.spec.standby = [];
    const files = new Map([
      [PATH, standbyFile('prod', SET, policy.spec, 2).content!],
      ['clusters/prod/algorithms/bert/deployment.yaml', 'kind: Deployment\n'],
    ]);
    const removal = standbyChanges(input({ policy: p, git: { files } }));
    expect(removal.map((c) => [c.subject, c.files])).toEqual([['llm', [{ path: PATH, content: null }]]]);
    const cs = buildChangeSet(removal[0]!)!;
    expect(cs.title).toBe('gpuops(prod): remove Deployment algorithms/gpuops-standby-llm');
    expect(standbyChanges(input({ policy: p, git: { files }, policyErrors: true }))).toEqual([]);
  });
});

describe("the standby Deployment asks its algorithms' vendor's GPUs", () => {
  const alg = (name: string, vendor?: 'amd' | 'nvidia') =>
    ({ name, namespace: 'algorithms', spec: vendor ? { gpu: { vendor } } : {} }) as never;
  it.each([
    ['AMD algorithms', [alg('bert', 'amd'), alg('llama', 'amd')], 'amd.com/gpu'],
    ['NVIDIA by default', [alg('bert'), alg('llama')], 'nvidia.com/gpu'],
    ['no algorithms given', undefined, 'nvidia.com/gpu'],
  ] as const)('%s', (_, algorithms, resource) => {
    const [cs] = standbyChanges(
      input({ samples: new Map([['bert', pods('algorithms', 100)]]), ...(algorithms ? { algorithms } : {}) }),
    );
    const d = parse(cs!.files[0]!.content!) as {
      spec: { template: { spec: { containers: { resources: { requests: Record<string, string> } }[] } } };
    };
    expect(d.spec.template.spec.containers[0]!.resources.requests).toEqual({ [resource]: '1' });
  });
});
