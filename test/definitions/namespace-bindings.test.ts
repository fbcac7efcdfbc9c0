/**
 * A spec picks a namespace only from those its folder is bound to. With `allowedNamespaces:
 * [algorithms, team-*]` (the docs' example) a spec in team A's folder set team B's namespace, and
 * so read team B's Secret and took team B's Service name. The policy's `namespacesByPath` binds
 * folders to namespaces; every row below is a spec file and the namespace it asks for, on both
 * sides of the boundary, through `parseAlgorithms` (what `validate` and every pass run).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** The docs' example with team folders bound to team namespaces, plus a literal binding. */
const POLICY = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: teams}',
  'spec:',
  '  allowedNamespaces: [algorithms, team-*, shared]',
  '  namespacesByPath:',
  "    - {path: 'algorithms/platform/**', namespaces: [algorithms, shared]}",
  "    - {path: 'algorithms/{team}/**', namespaces: ['team-{team}']}",
  '',
].join('\n');

const teams = (): Policy => {
  const parsed = parsePolicy(defaults, [{ path: 'policies/teams.yaml', text: POLICY }]);
  expect(parsed.errors).toEqual([]);
  return parsed.policy;
};

/** An Algorithm whose `metadata.namespace` (line 5, column 14) is `ns`, or none. */
const spec = (ns?: string) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    '  name: a',
    ...(ns === undefined ? [] : [`  namespace: ${ns}`]),
    'spec: {image: "x:1", resources: {gpus: 1}}',
    '',
  ].join('\n');

const parse = (file: string, ns: string | undefined, p = teams()) =>
  parseAlgorithms([{ path: file, text: spec(ns) }], p);

describe('namespacesByPath: a folder uses only its namespaces', () => {
  it.each([
    // [file, namespace asked, allowed?]
    ['algorithms/vision/detect.yaml', 'team-vision', true],
    ['algorithms/vision/deep/er/detect.yaml', 'team-vision', true],
    ['algorithms/vision/detect.yaml', 'team-speech', false], // another team's namespace
    ['algorithms/vision/detect.yaml', 'algorithms', false], // the platform's
    ['algorithms/platform/x.yaml', 'shared', true],
    ['algorithms/platform/x.yaml', 'algorithms', true],
    ['algorithms/platform/x.yaml', 'team-vision', false],
    ['algorithms/top.yaml', 'algorithms', false], // bound to algorithms/platform/** only
    ['algorithms/top.yaml', 'team-vision', false], // a team's namespace from an unbound file
    ['algorithms/top.yaml', 'default', false], // the allow-list still holds
  ])('%s asking for %s: allowed %s', (file, ns, ok) => {
    const parsed = parse(file, ns);
    if (ok) {
      expect(parsed.errors).toEqual([]);
      expect(parsed.algorithms.map((a) => a.namespace)).toEqual([ns]);
      return;
    }
    expect(parsed.algorithms).toEqual([]);
    expect(parsed.errors.map(formatSpecError)).toEqual([
      expect.stringMatching(new RegExp(`^${file.replace(/\./g, '\\.')}:5:14: metadata\\.namespace: `)),
    ]);
  });

  it('the message says which entry binds the file and what it gives', () => {
    expect(parse('algorithms/vision/detect.yaml', 'team-speech').errors[0]!.message).toBe(
      'namespace "team-speech" is not for algorithms/vision/detect.yaml: the policy\'s namespacesByPath[1] (algorithms/{team}/**) gives it team-vision',
    );
    expect(parse('algorithms/top.yaml', 'team-vision').errors[0]!.message).toMatch(
      /^namespace "team-vision" belongs to the specs of algorithms\/\{team\}\/\*\* /,
    );
  });

  it('a spec without metadata.namespace runs in its binding first namespace, or is refused at metadata', () => {
    expect(parse('algorithms/vision/detect.yaml', undefined).algorithms.map((a) => a.namespace)).toEqual([
      'team-vision',
    ]);
    expect(parse('algorithms/platform/x.yaml', undefined).algorithms.map((a) => a.namespace)).toEqual([
      'algorithms',
    ]);
    // An unbound file gets the policy's namespace, which a binding claims: refused at `metadata:`.
    expect(parse('algorithms/top.yaml', undefined).errors.map(formatSpecError)).toEqual([
      expect.stringMatching(
        /^algorithms\/top\.yaml:3:1: metadata: no metadata\.namespace, so "algorithms": /,
      ),
    ]);
  });

  it.each([
    ['algorithms/Vision/a.yaml', undefined, '3:1: metadata', 'team-Vision'],
    ['algorithms/Vision/a.yaml', 'team-vision', '5:14: metadata.namespace', 'team-Vision'],
    ['algorithms/my_team/a.yaml', undefined, '3:1: metadata', 'team-my_team'],
  ])(
    '%s asking for %s: the folder makes no namespace, so the advice is to rename it',
    (file, ns, at, made) => {
      const errors = parse(file, ns).errors.map(formatSpecError);
      expect(errors).toEqual([
        `${file}:${at}: ${file}'s folder makes no namespace: the policy's namespacesByPath[1] (algorithms/{team}/**) gives it ${made}, which is no namespace name (a DNS-1123 label: lower-case letters, digits and "-"); rename the folder`,
      ]);
    },
  );

  it.each(['vision-x', 'v2'])('the neighbour folder %s makes a namespace the spec runs in', (folder) => {
    const parsed = parse(`algorithms/${folder}/a.yaml`, undefined);
    expect(parsed.errors).toEqual([]);
    expect(parsed.algorithms.map((a) => a.namespace)).toEqual([`team-${folder}`]);
  });

  it('a folder name that makes no namespace is refused, and kube-* stays refused through a capture', () => {
    expect(parse('algorithms/Vision_X/a.yaml', 'team-vision-x').errors[0]!.message).toContain(
      'gives it team-Vision_X',
    );
    const bare = teams();
    bare.spec.namespacesByPath = [{ path: 'algorithms/{team}/**', namespaces: ['{team}'] }];
    bare.spec.allowedNamespaces = ['algorithms', 'kube', 'vision'];
    expect(parse('algorithms/kube-system/a.yaml', 'kube-system', bare).errors[0]!.message).toContain(
      "Kubernetes' own namespace",
    );
    expect(parse('algorithms/vision/a.yaml', 'vision', bare).errors).toEqual([]);
  });

  it("the review's example: team A's spec in team B's namespace, with team B's Secret and Service name, is refused whole", () => {
    const text = [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata:',
      '  name: api', // team B's Service is called api
      '  namespace: team-speech',
      'spec:',
      '  image: "x:1"',
      '  resources: {gpus: 1}',
      '  template:',
      '    spec:',
      '      containers: [{ports: [{containerPort: 80}], envFrom: [{secretRef: {name: speech-db}}]}]',
      '',
    ].join('\n');
    const parsed = parseAlgorithms([{ path: 'algorithms/vision/api.yaml', text }], teams());
    // Not resolved, so no Deployment or Service of it is ever rendered, and no pod reads speech-db.
    expect(parsed.algorithms).toEqual([]);
    expect(parsed.errors.map((e) => `${e.line}:${e.column} ${e.field}`)).toEqual(['5:14 metadata.namespace']);
  });

  it('without namespacesByPath every file may use every allowed namespace (as before)', () => {
    const p = teams();
    delete p.spec.namespacesByPath;
    expect(parse('algorithms/vision/detect.yaml', 'team-speech', p).errors).toEqual([]);
  });
});

describe("namespacesByPath: the policy's own rules", () => {
  const policyErrors = (entries: string) =>
    parsePolicy(defaults, [
      {
        path: 'policies/p.yaml',
        text: `apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: p}\nspec:\n  allowedNamespaces: [algorithms, team-*]\n  namespacesByPath:\n${entries}`,
      },
    ]).errors.map(formatSpecError);

  it.each([
    [
      "    - {path: 'specs/{team}/**', namespaces: [team-a]}\n",
      /namespacesByPath\[0\]\.path: path pattern must start with "algorithms\/"/,
    ],
    [
      "    - {path: 'algorithms/{team}/**', namespaces: ['team-{group}']}\n",
      /namespaces\[0\]: uses \{group\}, which the path/,
    ],
    ["    - {path: 'algorithms/{t}/{t}/**', namespaces: [team-a]}\n", /captures \{t\} twice/],
    ["    - {path: 'algorithms/a**/x.yaml', namespaces: [team-a]}\n", /"\*\*" stands alone/],
    ["    - {path: 'algorithms/{team}/**', namespaces: ['Team_{team}']}\n", /is no namespace name/],
    ["    - {path: 'algorithms/{team}/**', namespaces: ['kube-{team}']}\n", /Kubernetes' own namespace/],
  ])('%s is an error', (entries, message) => {
    expect(policyErrors(entries)).toEqual([expect.stringMatching(message)]);
  });

  it('its neighbours are valid', () => {
    expect(
      policyErrors(
        "    - {path: 'algorithms/{team}/**', namespaces: ['team-{team}', 'team-{team}-*']}\n    - {path: 'algorithms/*.yaml', namespaces: [algorithms]}\n",
      ),
    ).toEqual([]);
  });
});
