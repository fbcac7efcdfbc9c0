/**
 * Issue 29 item 1: a spec author stays inside the namespaces the platform team allows. A spec in
 * `kube-system` validated and made the pools PR write a Namespace and a RoleBinding there; now
 * `kube-*`, the controller's namespace and any namespace outside `allowedNamespaces` are located
 * errors at `metadata.namespace`, and the spec is not resolved (so never rendered).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy, PolicySpec } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

const policy = (edit: (p: PolicySpec) => void = () => {}): Policy => {
  const p = structuredClone(defaults);
  edit(p.spec);
  return p;
};

/** An Algorithm `a` whose `metadata.namespace` (line 4, column 14) is `ns`, or none. */
const spec = (ns?: string, name = 'a') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    `  name: ${name}`,
    ...(ns === undefined ? [] : [`  namespace: ${ns}`]),
    'spec: {image: "x:1", resources: {gpus: 1}}',
    '',
  ].join('\n');

const errorsOf = (text: string, p = policy()) =>
  parseAlgorithms([{ path: 'algorithms/a.yaml', text }], p).errors.map(formatSpecError);

describe('metadata.namespace: only what the policy allows', () => {
  it.each([
    ['kube-system', "Kubernetes' own namespace (kube-*)"],
    ['kube-public', "Kubernetes' own namespace (kube-*)"],
    ['kube-node-lease', "Kubernetes' own namespace (kube-*)"],
    ['gpuops-system', "the controller's own namespace"],
    ['default', "not in the policy's allowedNamespaces (algorithms)"],
    ['algorithms2', "not in the policy's allowedNamespaces (algorithms)"],
  ])('%s is an error at the value, with file, line and column, and the spec is not resolved', (ns, why) => {
    const parsed = parseAlgorithms([{ path: 'algorithms/a.yaml', text: spec(ns) }], policy());
    expect(parsed.algorithms).toEqual([]);
    expect(parsed.errors.map(formatSpecError)).toEqual([
      expect.stringMatching(/^algorithms\/a\.yaml:5:14: metadata\.namespace: /),
    ]);
    expect(parsed.errors[0]!.message).toContain(why);
  });

  it('kube-system is refused even when the policy lists it (the list cannot widen the rule)', () => {
    const p = policy((s) => (s.allowedNamespaces = ['algorithms', 'kube-system', 'gpuops-system']));
    expect(errorsOf(spec('kube-system'), p)).toHaveLength(1);
    expect(errorsOf(spec('gpuops-system'), p)).toHaveLength(1);
  });

  it.each([
    ['no namespace: the policy’s own', undefined, {}],
    ['the policy’s namespace by name', 'algorithms', {}],
    ['a listed namespace', 'vision', { allowedNamespaces: ['algorithms', 'vision'] }],
    ['kube (no dash): the list’s business', 'kube', { allowedNamespaces: ['algorithms', 'kube'] }],
    ['kubeflow: not kube-*', 'kubeflow', { allowedNamespaces: ['algorithms', 'kubeflow'] }],
    ['a prefix pattern', 'team-a', { allowedNamespaces: ['algorithms', 'team-*'] }],
    [
      'gpuops-system once the controller runs elsewhere',
      'gpuops-system',
      {
        controllerNamespace: 'platform-gpuops',
        allowedNamespaces: ['algorithms', 'gpuops-system'],
      },
    ],
  ])('the neighbour, %s, is valid', (_name, ns, edit: Partial<PolicySpec>) => {
    const p = policy((s) => Object.assign(s, edit));
    const parsed = parseAlgorithms([{ path: 'algorithms/a.yaml', text: spec(ns) }], p);
    expect(parsed.errors).toEqual([]);
    expect(parsed.algorithms.map((a) => a.namespace)).toEqual([ns ?? 'algorithms']);
  });

  it.each([
    ['team (the pattern wants team-…)', 'team'],
    ['teams-a (another prefix)', 'teams-a'],
  ])('a pattern matches its prefix only: %s is refused', (_name, ns) => {
    const p = policy((s) => (s.allowedNamespaces = ['algorithms', 'team-*']));
    expect(errorsOf(spec(ns), p)).toHaveLength(1);
  });

  it('the controller namespace the policy names is refused, and gpuops-system is then a plain unlisted one', () => {
    const p = policy((s) => (s.controllerNamespace = 'platform-gpuops'));
    expect(errorsOf(spec('platform-gpuops'), p)[0]).toContain("the controller's own namespace");
    expect(errorsOf(spec('gpuops-system'), p)[0]).toContain('not in the policy');
  });

  it('one bad spec never stops the others: the good one in the same file resolves', () => {
    const text = `${spec('kube-system', 'bad')}---\n${spec(undefined, 'good')}`;
    const parsed = parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy());
    expect(parsed.algorithms.map((a) => a.name)).toEqual(['good']);
    expect(parsed.errors.map((e) => [e.line, e.field])).toEqual([[5, 'metadata.namespace']]);
  });
});

const HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec:\n';
const policyErrors = (body: string) =>
  parsePolicy(defaults, [{ path: 'policies/p.yaml', text: `${HEAD}${body}\n` }]).errors.map(formatSpecError);

describe('the policy’s own namespaces', () => {
  it('the shipped default: namespace algorithms, controller gpuops-system, no list', () => {
    expect(defaults.spec).toMatchObject({ namespace: 'algorithms', controllerNamespace: 'gpuops-system' });
    expect(defaults.spec.allowedNamespaces).toBeUndefined();
  });

  it.each([
    ['namespace: kube-system', '  namespace: kube-system', 'policies/p.yaml:5:14: spec.namespace:'],
    ['namespace: the controller’s', '  namespace: gpuops-system', 'policies/p.yaml:5:14: spec.namespace:'],
    [
      'a kube-* pattern in the list',
      '  allowedNamespaces: [algorithms, kube-*]',
      'policies/p.yaml:5:35: spec.allowedNamespaces[1]:',
    ],
    [
      'the controller’s namespace in the list',
      '  allowedNamespaces: [algorithms, gpuops-system]',
      'policies/p.yaml:5:35: spec.allowedNamespaces[1]:',
    ],
    [
      'a list without the policy’s namespace',
      '  allowedNamespaces: [vision]',
      'policies/p.yaml:5:22: spec.allowedNamespaces:',
    ],
    [
      'a malformed entry',
      '  allowedNamespaces: [algorithms, "Team_A"]',
      'policies/p.yaml:5:35: spec.allowedNamespaces[1]:',
    ],
  ])('%s is a located error and the override is not applied', (_name, body, where) => {
    const errors = policyErrors(body);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(where);
  });

  it.each([
    '  allowedNamespaces: [algorithms, vision, team-*]',
    '  namespace: ml\n  allowedNamespaces: [ml, ml-*]',
    '  controllerNamespace: ops\n  allowedNamespaces: [algorithms, gpuops-system]',
  ])('the neighbour %j is valid', (body) => {
    expect(policyErrors(body)).toEqual([]);
  });
});

/** A policy body with one standby set in `ns`. */
const standbyIn = (ns: string, extra = '') =>
  `${extra}  standby:\n    - {name: llm, pool: short-task, namespace: ${ns}, image: "r.example.com/m:1", algorithms: [bert], gpus: 1, port: 8000, readinessPath: /ready, wakePath: /wake, claimSeconds: 5}`;

describe('a standby set’s namespace: where its algorithms run and gpuops may relabel Pods', () => {
  it.each([
    ['kube-system', '', "Kubernetes' own namespace (kube-*)"],
    ['gpuops-system', '', "the controller's own namespace"],
    ['vision', '', "not in the policy's allowedNamespaces (algorithms)"],
    ['team-b', '  allowedNamespaces: [algorithms, team-a-*]\n', "not in the policy's allowedNamespaces"],
  ])('%s (%j) is a located error', (ns, extra, why) => {
    const errors = policyErrors(standbyIn(ns, extra));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('spec.standby[0].namespace:');
    expect(errors[0]).toContain(why);
  });

  it.each([
    ['algorithms', ''],
    ['vision', '  allowedNamespaces: [algorithms, vision]\n'],
    ['team-a-1', '  allowedNamespaces: [algorithms, team-a-*]\n'],
  ])('the neighbour %s (%j) is valid', (ns, extra) => {
    expect(policyErrors(standbyIn(ns, extra))).toEqual([]);
  });
});
