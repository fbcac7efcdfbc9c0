import { beforeEach, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import type { Policy } from '../../src/definitions/types.js';

let policy: Policy;
beforeEach(async () => {
  policy = await loadDefaultPolicy();
});

/** An Algorithm document named `name` whose line 7 (and on) is `body`. */
function algo(name: string, body = '  resources: {gpus: 1}'): string {
  return [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  image: registry.example.com/ml/x:1',
    body,
    '',
  ].join('\n');
}

interface Row {
  name: string;
  files: Record<string, string>;
  /** Names of the algorithms that load. */
  valid: string[];
  /** [file, line, column, field, part of the message] of every error, in order. */
  errors: [string, number, number, string, string][];
}

const LONG = 'a'.repeat(70);

const rows: Row[] = [
  {
    name: 'ValidSpecsLoadAcrossFilesAndDocuments',
    files: {
      'algorithms/a.yaml': `${algo('one')}---\n${algo('two')}`,
      'algorithms/sub/b.yml': algo('three'),
    },
    valid: ['one', 'two', 'three'],
    errors: [],
  },
  {
    name: 'EmptyDocumentsAreSkipped',
    files: { 'algorithms/a.yaml': `---\n# nothing here\n---\n${algo('one')}---\n---\n` },
    valid: ['one'],
    errors: [],
  },
  {
    name: 'AFileWithNoDocumentIsAnErrorTheOthersLoad',
    files: {
      'algorithms/a.yaml': '',
      'algorithms/b.yaml': '# switched off\n---\n',
      'algorithms/c.yaml': algo('one'),
    },
    valid: ['one'],
    errors: [
      ['algorithms/a.yaml', 1, 1, '', 'no Algorithm in this file'],
      ['algorithms/b.yaml', 1, 1, '', 'no Algorithm in this file'],
    ],
  },
  {
    name: 'AFileWhoseOnlyDocumentIsBrokenHasItsSyntaxErrorNotTheEmptyOne',
    files: { 'algorithms/a.yaml': 'kind: [Algorithm\n' },
    valid: [],
    errors: [['algorithms/a.yaml', 1, 1, 'kind', 'YAML syntax']],
  },
  {
    name: 'CrlfReadsLikeLfWithTheSameLines',
    files: {
      'algorithms/a.yaml': algo('one').replace(/\n/g, '\r\n'),
      'algorithms/b.yaml': algo('two', '  resources: {gpus: 0.5}').replace(/\n/g, '\r\n'),
    },
    valid: ['one'],
    errors: [['algorithms/b.yaml', 7, 21, 'spec.resources.gpus', 'whole number of GPUs']],
  },
  {
    name: 'QuantitiesInKubernetesGrammarAreValid',
    files: {
      'algorithms/a.yaml': [
        algo('m', '  resources: {gpus: 1, cpu: 500m, memory: 16Gi}'),
        algo('g', '  resources: {gpus: 2, cpu: "4", memory: 16G}'),
        algo('e', '  resources: {gpus: 1, cpu: 1e3, memory: 1e9}'),
        algo('num', '  resources: {gpus: 1, cpu: 4, memory: 0.5Gi}'),
      ].join('---\n'),
    },
    valid: ['m', 'g', 'e', 'num'],
    errors: [],
  },
  {
    name: 'AliasesAndMergeKeysWork',
    files: {
      'algorithms/a.yaml': [
        'apiVersion: gpuops.dev/v1alpha1',
        'kind: Algorithm',
        'metadata: {name: aliased}',
        'spec:',
        '  image: x:1',
        '  args: &args ["--a", "--b"]',
        '  resources: &res {gpus: 1, cpu: "2"}',
        '  benchmark: {args: *args}',
        '---',
        'apiVersion: gpuops.dev/v1alpha1',
        'kind: Algorithm',
        'metadata: {name: merged}',
        'spec:',
        '  image: x:1',
        '  resources: {<<: {gpus: 2}, memory: 1Gi}',
        '',
      ].join('\n'),
    },
    valid: ['aliased', 'merged'],
    errors: [],
  },
  {
    name: 'UnquotedYesInAStringFieldAsksForQuotes',
    files: { 'algorithms/a.yaml': algo('one', '  env: [{name: DEBUG, value: yes}]\n  resources: {gpus: 1}') },
    valid: [],
    errors: [['algorithms/a.yaml', 7, 30, 'spec.env[0].value', 'write "yes" in quotes']],
  },
  {
    name: 'UnquotedOnInALabelAsksForQuotes',
    files: {
      'algorithms/a.yaml': [
        'apiVersion: gpuops.dev/v1alpha1',
        'kind: Algorithm',
        'metadata:',
        '  name: one',
        '  labels: {tracing: on, team: ml}',
        'spec: {image: x, resources: {gpus: 1}}',
        '',
      ].join('\n'),
    },
    valid: [],
    errors: [['algorithms/a.yaml', 5, 21, 'metadata.labels.tracing', 'unquoted on is a string in YAML 1.2']],
  },
  {
    name: 'DuplicateKeyIsAnErrorAndTheNextDocumentStillLoads',
    files: {
      'algorithms/a.yaml': `${algo('one')}  image: other:2\n---\n${algo('two')}`,
    },
    valid: ['two'],
    errors: [['algorithms/a.yaml', 8, 3, 'spec.image', 'duplicate key "image"']],
  },
  {
    name: 'AliasBombIsCapped',
    files: {
      'algorithms/bomb.yaml': [
        'a: &a ["x","x","x","x","x","x","x","x","x"]',
        'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
        'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
        'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
        'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
        '---',
        algo('after'),
      ].join('\n'),
    },
    valid: ['after'],
    errors: [['algorithms/bomb.yaml', 1, 1, '', 'aliases expand to too many nodes']],
  },
  {
    name: 'LowerCaseGigaIsRejectedWithAHint',
    files: { 'algorithms/a.yaml': algo('one', '  resources:\n    gpus: 1\n    memory: 16g') },
    valid: [],
    errors: [['algorithms/a.yaml', 9, 13, 'spec.resources.memory', 'did you mean 16Gi or 16G?']],
  },
  {
    name: 'GarbageQuantityIsRejected',
    files: { 'algorithms/a.yaml': algo('one', '  resources:\n    gpus: 1\n    cpu: 1000abc') },
    valid: [],
    errors: [['algorithms/a.yaml', 9, 10, 'spec.resources.cpu', '"1000abc" is not a Kubernetes quantity']],
  },
  {
    name: 'FractionalGpusAreRejected',
    files: { 'algorithms/a.yaml': algo('one', '  resources:\n    gpus: 0.5') },
    valid: [],
    errors: [['algorithms/a.yaml', 8, 11, 'spec.resources.gpus', 'got 0.5']],
  },
  {
    name: 'GpusAsAWordAreRejected',
    files: { 'algorithms/a.yaml': algo('one', '  resources:\n    gpus: "two"') },
    valid: [],
    errors: [['algorithms/a.yaml', 8, 11, 'spec.resources.gpus', 'got the string "two"']],
  },
  {
    name: 'ZeroGpusAreRejected',
    files: { 'algorithms/a.yaml': algo('one', '  resources:\n    gpus: 0') },
    valid: [],
    errors: [['algorithms/a.yaml', 8, 11, 'spec.resources.gpus', 'at least 1, got 0']],
  },
  {
    name: 'PathTraversalNameIsRejected',
    files: { 'algorithms/a.yaml': algo('../x') },
    valid: [],
    errors: [['algorithms/a.yaml', 4, 9, 'metadata.name', 'did you mean "x"?']],
  },
  {
    name: 'NameWithAccentsAndSpaceIsRejectedWithASuggestion',
    files: { 'algorithms/a.yaml': algo('Résumé v2') },
    valid: [],
    errors: [['algorithms/a.yaml', 4, 9, 'metadata.name', 'did you mean "resume-v2"?']],
  },
  {
    name: 'NameLongerThan63IsRejected',
    files: { 'algorithms/a.yaml': algo(LONG) },
    valid: [],
    errors: [['algorithms/a.yaml', 4, 9, 'metadata.name', 'is 70 characters; a name is at most 63']],
  },
  {
    name: 'DuplicateNameAcrossFilesNamesBothFilesAndKeepsTheFirst',
    files: { 'algorithms/a.yaml': algo('same'), 'algorithms/z/b.yaml': `\n\n${algo('same')}` },
    valid: ['same'],
    errors: [
      [
        'algorithms/z/b.yaml',
        6,
        9,
        'metadata.name',
        'duplicate algorithm name "same": already defined at algorithms/a.yaml:4:9',
      ],
    ],
  },
  {
    name: 'UnknownFieldSuggestsTheCloseKnownOne',
    files: { 'algorithms/a.yaml': algo('one', '  resources: {gpus: 1}\n  sclaing: {minReplicas: 2}') },
    valid: [],
    errors: [['algorithms/a.yaml', 8, 3, 'spec.sclaing', 'unknown field "sclaing"; did you mean "scaling"?']],
  },
  {
    name: 'UnknownFieldFarFromAnyListsTheKnownOnes',
    files: { 'algorithms/a.yaml': algo('one', '  resources: {gpus: 1, nvme: 2}') },
    valid: [],
    errors: [['algorithms/a.yaml', 7, 24, 'spec.resources.nvme', 'known fields: gpus, cpu, memory']],
  },
  {
    name: 'MissingRequiredFieldPointsAtItsParent',
    files: { 'algorithms/a.yaml': algo('one', '  resources:\n    cpu: "1"') },
    valid: [],
    errors: [['algorithms/a.yaml', 7, 3, 'spec.resources.gpus', 'required field "gpus" is missing']],
  },
  {
    name: 'PolicyInAlgorithmsFolderIsOneError',
    files: {
      'algorithms/p.yaml':
        'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: x}\nspec: {namespace: y}\n',
    },
    valid: [],
    errors: [['algorithms/p.yaml', 2, 7, 'kind', 'Policy documents belong under policies/']],
  },
  {
    name: 'WrongApiVersionIsOneError',
    files: { 'algorithms/a.yaml': algo('one').replace('gpuops.dev/v1alpha1', 'apps/v1') },
    valid: [],
    errors: [
      ['algorithms/a.yaml', 1, 13, 'apiVersion', 'must be "gpuops.dev/v1alpha1", got the string "apps/v1"'],
    ],
  },
  {
    name: 'SyntaxErrorInOneFileHidesNeitherItsOtherDocumentsNorOtherFiles',
    files: {
      'algorithms/a.yaml': `${algo('one')}---\nspec: [unclosed\n---\n${algo('two')}`,
      'algorithms/b.yaml': algo('three', '  resources: {gpus: 0}'),
      'algorithms/c.yaml': algo('four'),
    },
    valid: ['one', 'two', 'four'],
    errors: [
      ['algorithms/a.yaml', 9, 1, 'spec', 'YAML syntax: Flow sequence'],
      ['algorithms/b.yaml', 7, 21, 'spec.resources.gpus', 'at least 1'],
    ],
  },
  {
    name: 'MinReplicasAbovePolicyMaxIsRejected',
    files: { 'algorithms/a.yaml': algo('one', '  resources: {gpus: 1}\n  scaling: {minReplicas: 10}') },
    valid: [],
    errors: [
      [
        'algorithms/a.yaml',
        8,
        26,
        'spec.scaling.minReplicas',
        'minReplicas 10 is above maxReplicas 8 (policy default)',
      ],
    ],
  },
  {
    // Issue 16 item 5: cross-field rules run beside the schema, so one round lists every error.
    name: 'CrossFieldErrorsComeWithSchemaErrorsOfTheSameDocument',
    files: {
      'algorithms/a.yaml': algo(
        'one',
        '  resources: {gpu: 1}\n  scaling: {minReplicas: 5, maxReplicas: 2, utilization: {min: 90, max: 40}}',
      ),
    },
    valid: [],
    errors: [
      ['algorithms/a.yaml', 7, 3, 'spec.resources.gpus', 'required field "gpus" is missing'],
      ['algorithms/a.yaml', 7, 15, 'spec.resources.gpu', 'unknown field "gpu"'],
      ['algorithms/a.yaml', 8, 26, 'spec.scaling.minReplicas', 'minReplicas 5 is above maxReplicas 2'],
      [
        'algorithms/a.yaml',
        8,
        64,
        'spec.scaling.utilization.min',
        'utilization min 90% must be below max 40%',
      ],
    ],
  },
  {
    name: 'EqualReplicaBoundsAreAFixedSizeNotAnError',
    files: {
      'algorithms/a.yaml': algo('one', '  resources: {gpus: 1}\n  scaling: {minReplicas: 3, maxReplicas: 3}'),
    },
    valid: ['one'],
    errors: [],
  },
  {
    name: 'MinReplicasOneAboveMaxIsTheFirstError',
    files: {
      'algorithms/a.yaml': algo('one', '  resources: {gpu: 1}\n  scaling: {minReplicas: 4, maxReplicas: 3}'),
    },
    valid: [],
    errors: [
      ['algorithms/a.yaml', 7, 3, 'spec.resources.gpus', 'missing'],
      ['algorithms/a.yaml', 7, 15, 'spec.resources.gpu', 'unknown field'],
      ['algorithms/a.yaml', 8, 26, 'spec.scaling.minReplicas', 'minReplicas 4 is above maxReplicas 3'],
    ],
  },
  {
    name: 'EqualUtilizationBoundsAreRejectedBesideASchemaError',
    files: {
      'algorithms/a.yaml': algo(
        'one',
        '  resources: {gpus: 1.5}\n  scaling: {utilization: {min: 50, max: 50}}',
      ),
    },
    valid: [],
    errors: [
      ['algorithms/a.yaml', 7, 21, 'spec.resources.gpus', 'whole number of GPUs'],
      [
        'algorithms/a.yaml',
        8,
        32,
        'spec.scaling.utilization.min',
        'utilization min 50% must be below max 50%',
      ],
    ],
  },
  {
    name: 'ABoundTheSchemaRejectsIsNotComparedAgain',
    files: {
      'algorithms/a.yaml': algo(
        'one',
        '  resources: {gpus: 1}\n  scaling: {minReplicas: "9", maxReplicas: 0}',
      ),
    },
    valid: [],
    errors: [
      ['algorithms/a.yaml', 8, 26, 'spec.scaling.minReplicas', 'must be a whole number'],
      ['algorithms/a.yaml', 8, 44, 'spec.scaling.maxReplicas', 'must be ≥ 1'],
    ],
  },
  {
    name: 'PolicyMaxAgainstTheSpecMinBesideAnUnknownField',
    files: {
      'algorithms/a.yaml': algo('one', '  resources: {gpus: 1}\n  scaling: {minReplicas: 9, maxReplica: 9}'),
    },
    valid: [],
    errors: [
      [
        'algorithms/a.yaml',
        8,
        26,
        'spec.scaling.minReplicas',
        'minReplicas 9 is above maxReplicas 8 (policy default)',
      ],
      ['algorithms/a.yaml', 8, 29, 'spec.scaling.maxReplica', 'did you mean "maxReplicas"?'],
    ],
  },
  {
    name: 'ADuplicateNameIsReportedBesideTheFirstCopysOwnErrors',
    files: {
      'algorithms/a.yaml': algo('one', '  resources: {gpus: 0}'),
      'algorithms/b.yaml': algo('one'),
    },
    valid: [],
    errors: [
      ['algorithms/a.yaml', 7, 21, 'spec.resources.gpus', 'at least 1'],
      ['algorithms/b.yaml', 4, 9, 'metadata.name', 'already defined at algorithms/a.yaml:4:9'],
    ],
  },
  {
    name: 'UnquotedNAsANameIsAmbiguousToYaml11Readers',
    files: { 'algorithms/a.yaml': algo('n') },
    valid: [],
    errors: [['algorithms/a.yaml', 4, 9, 'metadata.name', 'write "n" in quotes']],
  },
  {
    name: 'EmptyValueIsNotAnAbsentField',
    files: { 'algorithms/a.yaml': algo('one', '  resources: {gpus: 1}\n  command:') },
    valid: [],
    errors: [['algorithms/a.yaml', 8, 11, 'spec.command', 'must be a list, got an empty value']],
  },
];

describe('parseAlgorithms', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const files = Object.entries(row.files).map(([path, text]) => ({ path, text }));
    const out = parseAlgorithms(files, policy);
    expect(out.algorithms.map((a) => a.name)).toEqual(row.valid);
    expect(out.errors.map((e) => [e.file, e.line, e.column, e.field])).toEqual(
      row.errors.map(([f, l, c, field]) => [f, l, c, field]),
    );
    out.errors.forEach((e, i) => expect(e.message).toContain(row.errors[i]![4]));
  });

  it('fills defaults from the policy and keeps what the spec sets', () => {
    const text = algo('one', '  resources: {gpus: 1}\n  scaling: {maxReplicas: 4, utilization: {max: 70}}');
    const [a] = parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy).algorithms;
    expect(a).toEqual({
      name: 'one',
      namespace: 'algorithms',
      spec: {
        image: 'registry.example.com/ml/x:1',
        resources: { gpus: 1 },
        scaling: { maxReplicas: 4, utilization: { max: 70 } },
      },
      scaling: { minReplicas: 1, maxReplicas: 4, utilization: { min: 30, max: 70 } },
      benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
      placement: 'auto',
      source: { file: 'algorithms/a.yaml', line: 1 },
    });
  });

  it('keeps quantities as written: cpu 4 is "4", memory 1e3 is "1e3"', () => {
    const text = algo('one', '  resources: {gpus: 1, cpu: 4, memory: 1e3}');
    const [a] = parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy).algorithms;
    expect(a?.spec.resources).toEqual({ gpus: 1, cpu: '4', memory: '1e3' });
  });
});
