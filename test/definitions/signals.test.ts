/**
 * `validate` on the signal fields: each problem located at its field, with its neighbour that
 * passes (a spec names a template of the policy, never PromQL; a unit must be the template's).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
let policy: Policy;

const POLICY = `apiVersion: gpuops.dev/v1alpha1
kind: Policy
metadata: {name: signals}
spec:
  scaling:
    serviceMetrics:
      - name: vllm-waiting
        unit: requests
        query: 'sum by (namespace, pod) (vllm:num_requests_waiting{namespace="$namespace"})'
`;

beforeAll(async () => {
  defaults = await loadDefaultPolicy();
  const parsed = parsePolicy(defaults, [{ path: 'policies/signals.yaml', text: POLICY }]);
  expect(parsed.errors).toEqual([]);
  policy = parsed.policy;
});

const spec = (scaling: string) => `apiVersion: gpuops.dev/v1alpha1
kind: Algorithm
metadata: {name: llm}
spec:
  image: registry.example.com/llm:1
  resources: {gpus: 1}
  scaling:
${scaling}
`;
const errorsOf = (scaling: string, p = policy) =>
  parseAlgorithms([{ path: 'algorithms/llm.yaml', text: spec(scaling) }], p).errors.map(
    (e) => `${e.line}:${e.column} ${e.field}: ${e.message}`,
  );

describe('spec.scaling.signal and serviceMetric', () => {
  it.each<[string, string, string[]]>([
    [
      'ANamedTemplateWithItsUnitPasses',
      '    signal: serviceMetric\n    serviceMetric: {name: vllm-waiting, unit: requests, min: 2, max: 10}',
      [],
    ],
    ['AGpuSignalPasses', '    signal: gpuMemory', []],
    [
      'ATemplateThePolicyDoesNotList',
      '    signal: serviceMetric\n    serviceMetric: {name: my-own-query, min: 2, max: 10}',
      [
        '9:27 spec.scaling.serviceMetric.name: service metric "my-own-query" is not one the policy allows (scaling.serviceMetrics: vllm-waiting)',
      ],
    ],
    [
      'AUnitOtherThanTheTemplates',
      '    signal: serviceMetric\n    serviceMetric: {name: vllm-waiting, unit: seconds, min: 2, max: 10}',
      [
        '9:47 spec.scaling.serviceMetric.unit: unit "seconds" does not match service metric vllm-waiting, which is in "requests"',
      ],
    ],
    [
      'MinNotBelowMax',
      '    signal: serviceMetric\n    serviceMetric: {name: vllm-waiting, min: 10, max: 10}',
      ['9:46 spec.scaling.serviceMetric.min: serviceMetric min 10 must be below max 10 (requests)'],
    ],
    [
      'ServiceMetricWithoutItsBlock',
      '    signal: serviceMetric',
      ['8:13 spec.scaling.signal: signal serviceMetric needs spec.scaling.serviceMetric: {name, min, max}'],
    ],
    [
      'TheBlockWithoutTheSignal',
      '    serviceMetric: {name: vllm-waiting, min: 2, max: 10}',
      [
        '8:5 spec.scaling.serviceMetric: serviceMetric is read only with signal: serviceMetric (this algorithm scales on gpuUtil)',
      ],
    ],
    [
      'AnUnknownSignal',
      '    signal: queueLength',
      [
        '8:13 spec.scaling.signal: must be one of gpuUtil, gpuEngineActive, gpuMemory, serviceMetric, got the string "queueLength"',
      ],
    ],
  ])('%s', (_name, scaling, want) => expect(errorsOf(scaling)).toEqual(want));

  it('a signal the policy does not allow', () => {
    const strict = {
      ...policy,
      spec: { ...policy.spec, scaling: { ...policy.spec.scaling, allowedSignals: ['gpuUtil' as const] } },
    };
    expect(errorsOf('    signal: gpuMemory', strict)).toEqual([
      '8:13 spec.scaling.signal: signal gpuMemory is not allowed by the policy (scaling.allowedSignals: gpuUtil)',
    ]);
  });

  it('resolves the band of a service metric in its unit, and the template', () => {
    const [a] = parseAlgorithms(
      [
        {
          path: 'algorithms/llm.yaml',
          text: spec('    signal: serviceMetric\n    serviceMetric: {name: vllm-waiting, min: 2, max: 10}'),
        },
      ],
      policy,
    ).algorithms;
    expect(a!.scaling.utilization).toEqual({ min: 2, max: 10 });
    expect(a!.signal).toEqual({
      kind: 'serviceMetric',
      unit: 'requests',
      serviceMetric: policy.spec.scaling.serviceMetrics![0],
    });
  });
});

describe('the policy’s templates', () => {
  it.each<[string, string, RegExp | null]>([
    ['WithTheNamespace', 'x{namespace="$namespace"}[$window]', null],
    [
      'WithoutTheNamespace',
      'sum by (namespace, pod) (x)',
      /must select the algorithm's namespace with \$namespace/,
    ],
    ['AnUnknownPlaceholder', 'x{namespace="$namespace", team="$team"}', /unknown placeholder \$team/],
  ])('%s', (_name, query, error) => {
    const text = POLICY.replace(/query: '.*'/, `query: '${query}'`);
    const parsed = parsePolicy(defaults, [{ path: 'policies/signals.yaml', text }]);
    if (error === null) expect(parsed.errors).toEqual([]);
    else
      expect(parsed.errors.map((e) => `${e.line} ${e.field}: ${e.message}`)).toEqual([
        expect.stringMatching(error),
      ]);
  });
});
