/**
 * The standby sets' own rules: set names unique, an algorithm in one set at most, engine gpuops
 * (policy problems, located in the document and leaving it out), and across the specs each
 * algorithm of a set in the set's namespace and at its GPU count (located at the set's entry;
 * the misfit leaves the set, its spec and the other sets go on). Each beside its valid neighbour.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { parseRepo } from '../../src/definitions/rules/repo.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

const set = (name: string, algorithms: string[], o: { ns?: string; gpus?: number } = {}) =>
  `    - {name: ${name}, pool: short-task, namespace: ${o.ns ?? 'algorithms'}, image: "r.example.com/m:1", algorithms: [${algorithms.join(', ')}], gpus: ${o.gpus ?? 1}, port: 8000, readinessPath: /ready, wakePath: /wake, claimSeconds: 5}`;

const policy = (sets: string[], extra = '') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: standby}',
    'spec:',
    '  allowedNamespaces: [algorithms, vision]',
    extra,
    '  standby:',
    ...sets,
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');

const algorithm = (name: string, o: { ns?: string; gpus?: number; vendor?: string } = {}) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    `metadata: {name: ${name}, namespace: ${o.ns ?? 'algorithms'}}`,
    'spec:',
    `  image: registry.example.com/ml/${name}:1.0.0`,
    `  resources: {gpus: ${o.gpus ?? 1}}`,
    o.vendor ? `  gpu: {vendor: ${o.vendor}}` : '',
    '',
  ]
    .filter((l, i, all) => l !== '' || i === all.length - 1)
    .join('\n');

function load(policyText: string, algs: Record<string, string> = {}) {
  const repo = parseRepo(defaults, {
    policies: [{ path: 'policies/standby.yaml', text: policyText }],
    algorithms: Object.entries(algs).map(([name, text]) => ({ path: `algorithms/${name}.yaml`, text })),
  });
  return { repo, errors: repo.errors.map(formatSpecError) };
}

describe('standby sets within the policy', () => {
  it('two sets of one name: located at the second name, the document left out', () => {
    const { repo, errors } = load(policy([set('llm', ['bert']), set('llm', ['llama'])]));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^policies\/standby\.yaml:8:\d+: spec\.standby\[1\]\.name: standby set "llm" is already declared at spec\.standby\[0\]/,
    );
    expect(repo.policy.spec.standby).toBeUndefined();
  });

  it('the neighbour: two sets of different names are valid', () => {
    const { repo, errors } = load(policy([set('llm', ['bert']), set('llm2', ['llama'])]));
    expect(errors).toEqual([]);
    expect(repo.policy.spec.standby?.map((s) => s.name)).toEqual(['llm', 'llm2']);
  });

  it('an algorithm in two sets, or twice in one: located at the second listing', () => {
    expect(load(policy([set('a', ['bert']), set('b', ['llama', 'bert'])])).errors).toEqual([
      expect.stringMatching(
        /spec\.standby\[1\]\.algorithms\[1\]: algorithm "bert" is already in standby set "a" \(spec\.standby\[0\]\)/,
      ),
    ]);
    expect(load(policy([set('a', ['bert', 'bert'])])).errors).toEqual([
      expect.stringMatching(
        /spec\.standby\[0\]\.algorithms\[1\]: algorithm "bert" is already in standby set "a"/,
      ),
    ]);
  });

  it('engine hpa with standby sets is refused; engine gpuops (the neighbour) is valid', () => {
    const hpa = load(policy([set('llm', ['bert'])], '  scaling: {engine: hpa}'));
    expect(hpa.errors).toEqual([
      expect.stringMatching(
        /^policies\/standby\.yaml:\d+:\d+: spec\.standby: standby sets need scaling\.engine: gpuops \(it is hpa\)/,
      ),
    ]);
    expect(load(policy([set('llm', ['bert'])], '  scaling: {engine: gpuops}')).errors).toEqual([]);
    // No sets: engine hpa is the policy's business.
    const none = load(policy([], '  scaling: {engine: hpa}').replace('  standby:', '  standby: []'));
    expect(none.errors).toEqual([]);
  });
});

describe('standby sets against the Algorithm specs', () => {
  it.each([
    ['another namespace', { ns: 'vision' }, 'runs in namespace "vision", not the set\'s "algorithms"'],
    ['2 GPUs for a 1-GPU set', { gpus: 2 }, 'asks for 2 GPU(s) per pod, a standby pod of set "llm" holds 1'],
    [
      'AMD GPUs in a set whose first algorithm asks NVIDIA ones',
      { vendor: 'amd' },
      'asks for amd.com/gpu, a standby pod of set "llm" holds nvidia.com/gpu (the GPUs of its first algorithm "bert", algorithms/bert.yaml:1)',
    ],
  ])('%s: located at the set entry; the algorithm leaves the set and still runs', (_, o, why) => {
    const { repo, errors } = load(policy([set('llm', ['bert', 'llama'])]), {
      bert: algorithm('bert'),
      llama: algorithm('llama', o),
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^policies\/standby\.yaml:7:\d+: spec\.standby\[0\]\.algorithms\[1\]: algorithm "llama" \(algorithms\/llama\.yaml:1\)/,
    );
    expect(errors[0]).toContain(why);
    expect(repo.policy.spec.standby?.[0]?.algorithms).toEqual(['bert']);
    expect(repo.algorithms.map((a) => a.name).sort()).toEqual(['bert', 'llama']);
  });

  it.each([
    ['same namespace and GPU count', { ns: 'algorithms', gpus: 1 }, {}],
    ['a 2-GPU algorithm in a 2-GPU set', { gpus: 2 }, { gpus: 2 }],
    ['a set in vision with its algorithm there', { ns: 'vision' }, { ns: 'vision' }],
  ])('the neighbour, %s, is valid', (_, alg, s) => {
    const { repo, errors } = load(policy([set('llm', ['bert'], s)]), { bert: algorithm('bert', alg) });
    expect(errors).toEqual([]);
    expect(repo.policy.spec.standby?.[0]?.algorithms).toEqual(['bert']);
  });

  it.each([
    ['both AMD', 'amd', 'amd'],
    ['both NVIDIA, one by default', undefined, 'nvidia'],
  ])('the neighbour of mixed vendors, %s, is valid', (_, first, second) => {
    const { repo, errors } = load(policy([set('llm', ['bert', 'llama'])]), {
      bert: algorithm('bert', first ? { vendor: first } : {}),
      llama: algorithm('llama', { vendor: second }),
    });
    expect(errors).toEqual([]);
    expect(repo.policy.spec.standby?.[0]?.algorithms).toEqual(['bert', 'llama']);
  });

  it("the set's vendor is its first algorithm that fits: a misfit first does not decide it", () => {
    const { repo, errors } = load(policy([set('llm', ['bert', 'llama', 'gpt'])]), {
      bert: algorithm('bert', { ns: 'vision', vendor: 'amd' }),
      llama: algorithm('llama'),
      gpt: algorithm('gpt', { vendor: 'amd' }),
    });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain('spec.standby[0].algorithms[0]: algorithm "bert"');
    expect(errors[1]).toContain(
      'spec.standby[0].algorithms[2]: algorithm "gpt" (algorithms/gpt.yaml:1) asks for amd.com/gpu',
    );
    expect(errors[1]).toContain('holds nvidia.com/gpu (the GPUs of its first algorithm "llama"');
    expect(repo.policy.spec.standby?.[0]?.algorithms).toEqual(['llama']);
  });

  it('one bad set never stops another: the good set keeps its algorithms', () => {
    const { repo, errors } = load(policy([set('a', ['bert'], { gpus: 2 }), set('b', ['llama'])]), {
      bert: algorithm('bert'),
      llama: algorithm('llama'),
    });
    expect(errors).toHaveLength(1);
    expect(repo.policy.spec.standby?.map((x) => [x.name, x.algorithms])).toEqual([
      ['a', []],
      ['b', ['llama']],
    ]);
  });

  it('an algorithm a set lists but no valid spec defines is no error', () => {
    expect(load(policy([set('llm', ['bert', 'ghost'])]), { bert: algorithm('bert') }).errors).toEqual([]);
  });
});
