import { Service } from 'kubernetes-models/v1/Service';
import { beforeEach, describe, expect, it } from 'vitest';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { servicePorts } from '../../src/manifests/service.js';
import { renderDeployment, renderWorkloadFiles, workloadDeletions } from '../../src/manifests/workloads.js';
import type { PodTemplate, Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { parse } from 'yaml';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

let policy: Policy;
beforeEach(async () => {
  policy = await policyWith();
});

/** An algorithm `serve` whose container has `ports` (a YAML flow sequence), or none. */
function algorithm(ports?: string): ResolvedAlgorithm {
  const extra = ports ? `  template:\n    spec:\n      containers:\n        - ports: ${ports}` : undefined;
  return algorithmsFromYaml(algorithmYaml({ name: 'serve', ...(extra ? { extra } : {}) }), policy)[0]!;
}

const files = (alg: ResolvedAlgorithm) =>
  renderWorkloadFiles({
    algorithm: alg,
    pool: 'short-task',
    policy: policy.spec,
    cluster: 'prod',
    templates: templates(),
  });
const template = (ports: unknown[]): PodTemplate => ({ spec: { containers: [{ ports }] } });

describe('servicePorts', () => {
  it.each([
    ['no template', undefined, []],
    ['a container without ports', { spec: { containers: [{}] } }, []],
    [
      'a named port: the Service targets the name',
      template([{ name: 'http', containerPort: 8000 }]),
      [{ name: 'http', port: 8000, protocol: 'TCP', targetPort: 'http' }],
    ],
    [
      'an unnamed port is named <protocol>-<number> and targets the number',
      template([{ containerPort: 9000, protocol: 'UDP' }]),
      [{ name: 'udp-9000', port: 9000, protocol: 'UDP', targetPort: 9000 }],
    ],
    [
      'a generated name a named port already holds falls back to port-<index>',
      template([{ name: 'tcp-8001', containerPort: 8001, protocol: 'UDP' }, { containerPort: 8001 }]),
      [
        { name: 'tcp-8001', port: 8001, protocol: 'UDP', targetPort: 'tcp-8001' },
        { name: 'port-1', port: 8001, protocol: 'TCP', targetPort: 8001 },
      ],
    ],
    [
      'appProtocol is kept',
      template([{ name: 'grpc', containerPort: 8001, appProtocol: 'kubernetes.io/h2c' }]),
      [{ name: 'grpc', port: 8001, protocol: 'TCP', targetPort: 'grpc', appProtocol: 'kubernetes.io/h2c' }],
    ],
    [
      'ports of an init container are left out',
      { spec: { initContainers: [{ ports: [{ containerPort: 1 }] }], containers: [{}] } },
      [],
    ],
  ])('%s', (_name, t, expected) => {
    expect(servicePorts(t as PodTemplate | undefined)).toEqual(expected);
  });
});

describe('service.yaml', () => {
  it('is written only when the container declares ports, and deleted when the ports go', () => {
    const withPorts = files(algorithm('[{name: http, containerPort: 8000}, {containerPort: 9090}]'));
    expect(withPorts.map((f) => f.path)).toEqual([
      'clusters/prod/algorithms/serve/deployment.yaml',
      'clusters/prod/algorithms/serve/service.yaml',
    ]);
    const svc = parse(withPorts[1]!.content!);
    expect(() => new Service(svc).validate()).not.toThrow();
    expect(svc.spec.ports.map((p: any) => [p.name, p.port, p.targetPort])).toEqual([
      ['http', 8000, 'http'],
      ['tcp-9090', 9090, 9090],
    ]);

    const without = files(algorithm());
    expect(without.map((f) => f.path)).toEqual(['clusters/prod/algorithms/serve/deployment.yaml']);
    const present = withPorts.map((f) => f.path);
    expect(
      workloadDeletions({ cluster: 'prod', algorithmsInGit: ['serve'], present, rendered: without }),
    ).toEqual([{ path: 'clusters/prod/algorithms/serve/service.yaml', content: null }]);
  });

  it("selects exactly the algorithm's pods: the Deployment's, not its benchmark Job's nor another algorithm's", () => {
    const alg = algorithm('[{name: http, containerPort: 8000}]');
    const svc = parse(files(alg)[1]!.content!);
    const matches = (labels: Record<string, string>) =>
      Object.entries(svc.spec.selector as Record<string, string>).every(([k, v]) => labels[k] === v);
    const deployment = renderDeployment({
      algorithm: alg,
      pool: 'short-task',
      policy: policy.spec,
      cluster: 'prod',
      templates: templates(),
    }) as any;
    expect(svc.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(matches(deployment.spec.template.metadata.labels)).toBe(true);
    const job = renderBenchmarkJob({
      algorithm: alg,
      policy: policy.spec,
      specHash: specHash(alg.spec, alg.annotations),
      sequence: 1,
      template: templates().benchmarkJob,
    }) as any;
    expect(job.spec.template.metadata.labels['gpuops.dev/algorithm']).toBe('serve');
    expect(matches(job.spec.template.metadata.labels)).toBe(false);
    const other = { ...deployment.spec.template.metadata.labels, 'app.kubernetes.io/name': 'serve-2' };
    expect(matches({ ...other, 'gpuops.dev/algorithm': 'serve-2' })).toBe(false);
    expect(svc.metadata).toMatchObject({ name: 'serve', namespace: 'algorithms' });
  });
});
