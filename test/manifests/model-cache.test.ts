/**
 * The model cache in the rendered manifests: the fill Job (name from the algorithm and a hash of
 * what it does, in the algorithm's namespace, the claim read-write, restricted pod security, no
 * GPU) and the Deployment mounting the claim read-only; and the plan's hold: the Deployment is
 * written only once the fill Job is Complete (`plan/model-cache.ts`).
 */
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { podSecurityProblems } from '../../src/definitions/rules/pod-security.js';
import { podRestrictedProblems } from '../../src/definitions/rules/pod-restricted.js';
import { modelCacheFillName, renderModelCacheFill } from '../../src/manifests/model-cache.js';
import { renderDeployment, renderWorkloadFiles } from '../../src/manifests/workloads.js';
import { fillKey, holdUntilFilled, modelCacheReady, type FillState } from '../../src/plan/model-cache.js';
import { readGitModel } from '../../src/plan/git-model.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

let policy: Policy;
beforeAll(async () => {
  policy = await policyWith();
});

const FILL = '{image: registry.example.com/ml/fetch:1.0, command: [fetch], args: [llama-3-8b, /models]}';
const algorithm = (cache: string, extra: string[] = []): ResolvedAlgorithm =>
  algorithmsFromYaml(
    [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata: {name: llama, namespace: team-a}',
      'spec:',
      '  image: registry.example.com/ml/llama:1.0',
      '  resources: {gpus: 1}',
      `  modelCache: ${cache}`,
      ...extra,
      '',
    ].join('\n'),
    structuredClone({ ...policy, spec: { ...policy.spec, allowedNamespaces: ['team-a'] } }),
  )[0]!;

const cacheWith = (fill = FILL, claim = 'llama-models') =>
  `{claimName: ${claim}, mountPath: /models, fill: ${fill}}`;

describe('the fill Job', () => {
  it('is a Job in the algorithm namespace, named from the algorithm and a hash, mounting the claim read-write', () => {
    const alg = algorithm(cacheWith());
    const job = renderModelCacheFill(alg)!;
    expect(() => new Job(job as any).validate()).not.toThrow();
    expect(job.metadata.name).toMatch(/^llama-model-cache-[0-9a-f]{8}$/);
    expect(job.metadata.namespace).toBe('team-a');
    const spec = job.spec as any;
    expect(spec.backoffLimit).toBe(3);
    expect(spec.ttlSecondsAfterFinished).toBeUndefined();
    const pod = spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.volumes).toEqual([
      { name: 'model-cache', persistentVolumeClaim: { claimName: 'llama-models' } },
    ]);
    expect(pod.containers).toHaveLength(1);
    const c = pod.containers[0];
    expect([c.image, c.command, c.args]).toEqual([
      'registry.example.com/ml/fetch:1.0',
      ['fetch'],
      ['llama-3-8b', '/models'],
    ]);
    expect(c.volumeMounts).toEqual([{ name: 'model-cache', mountPath: '/models' }]);
    expect(c.resources).toBeUndefined();
    expect(spec.template.metadata.labels['gpuops.dev/model-cache-fill']).toBe(job.metadata.name);
  });

  it("asks for nothing the default policy refuses, and meets the restricted profile's fields", () => {
    const pod = (renderModelCacheFill(algorithm(cacheWith()))!.spec as any).template.spec;
    expect(podSecurityProblems(pod, [], policy.spec.podSecurity)).toEqual([]);
    expect(podRestrictedProblems(pod, [], policy.spec.podSecurity)).toEqual([]);
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect([pod.automountServiceAccountToken, pod.hostNetwork, pod.nodeSelector]).toEqual([
      false,
      undefined,
      undefined,
    ]);
  });

  it("takes the algorithm's pod user, fsGroup and pull secrets, and nothing else of its template", () => {
    const alg = algorithm(cacheWith(), [
      '  template:',
      '    spec: {securityContext: {runAsUser: 1000, fsGroup: 2000}, imagePullSecrets: [{name: regcred}], volumes: [{name: scratch, emptyDir: {}}]}',
    ]);
    const pod = (renderModelCacheFill(alg)!.spec as any).template.spec;
    expect(pod.securityContext).toEqual({
      runAsUser: 1000,
      fsGroup: 2000,
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(pod.volumes.map((v: { name: string }) => v.name)).toEqual(['model-cache']);
  });

  it('the same fill step keeps its name; a changed claim, path, image, command or args is a new Job', () => {
    const name = (cache: string, extra?: string[]) =>
      modelCacheFillName('llama', algorithm(cache, extra).spec.modelCache);
    const base = name(cacheWith());
    expect(name(cacheWith(), ['  args: [--port, "8000"]'])).toBe(base);
    const changed = [
      cacheWith(FILL, 'other-claim'),
      cacheWith(FILL).replace('/models,', '/models2,'),
      cacheWith(FILL.replace('fetch:1.0', 'fetch:1.1')),
      cacheWith(FILL.replace('[fetch]', '[fetch2]')),
      cacheWith(FILL.replace('llama-3-8b', 'llama-3-70b')),
    ].map((c) => name(c));
    expect(new Set([base, ...changed]).size).toBe(6);
  });

  it('none without a fill step', () => {
    const alg = algorithm('{claimName: llama-models, mountPath: /models}');
    expect(renderModelCacheFill(alg)).toBeNull();
    const files = renderWorkloadFiles({
      algorithm: alg,
      pool: 'long-task',
      policy: policy.spec,
      cluster: 'prod',
      templates: templates(),
    });
    expect(files.map((f) => f.path)).toEqual(['clusters/prod/algorithms/llama/deployment.yaml']);
  });
});

describe('the Deployment', () => {
  it('mounts the claim read-only at the mount path and names the fill it reads', () => {
    const alg = algorithm(cacheWith());
    const d = renderDeployment({
      algorithm: alg,
      pool: 'long-task',
      policy: policy.spec,
      cluster: 'prod',
      templates: templates(),
    });
    expect(() => new Deployment(d as any).validate()).not.toThrow();
    const tpl = (d.spec as any).template;
    expect(tpl.spec.volumes).toEqual([
      { name: 'model-cache', persistentVolumeClaim: { claimName: 'llama-models', readOnly: true } },
    ]);
    expect(tpl.spec.containers[0].volumeMounts).toEqual([
      { name: 'model-cache', mountPath: '/models', readOnly: true },
    ]);
    expect(tpl.metadata.annotations['gpuops.dev/model-cache-fill']).toBe(
      renderModelCacheFill(alg)!.metadata.name,
    );
  });

  it("keeps the template's own volumes and mounts beside the cache", () => {
    const alg = algorithm(cacheWith(), [
      '  template:',
      '    spec: {volumes: [{name: scratch, emptyDir: {}}], containers: [{volumeMounts: [{name: scratch, mountPath: /scratch}]}]}',
    ]);
    const tpl = (
      renderDeployment({
        algorithm: alg,
        pool: 'long-task',
        policy: policy.spec,
        cluster: 'prod',
        templates: templates(),
      }).spec as any
    ).template;
    expect(tpl.spec.volumes.map((v: { name: string }) => v.name)).toEqual(['scratch', 'model-cache']);
    expect(tpl.spec.containers[0].volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual([
      '/scratch',
      '/models',
    ]);
  });

  it('the algorithm folder holds deployment.yaml and model-cache-fill.yaml, in path order', () => {
    const files = renderWorkloadFiles({
      algorithm: algorithm(cacheWith()),
      pool: 'long-task',
      policy: policy.spec,
      cluster: 'prod',
      templates: templates(),
    });
    expect(files.map((f) => f.path)).toEqual([
      'clusters/prod/algorithms/llama/deployment.yaml',
      'clusters/prod/algorithms/llama/model-cache-fill.yaml',
    ]);
    expect(parse(files[1]!.content!).kind).toBe('Job');
  });
});

describe('the plan holds the Deployment until the fill Job is Complete', () => {
  const PATH = 'clusters/prod/algorithms/llama/deployment.yaml';
  const render = (alg: ResolvedAlgorithm) =>
    renderWorkloadFiles({
      algorithm: alg,
      pool: 'long-task',
      policy: policy.spec,
      cluster: 'prod',
      templates: templates(),
    });
  const OLD = 'kind: Deployment\n# the running one, without the cache\n';
  /** Git's Deployment at PATH as the pass reads it (`readGitModel`: parsed once). */
  const inGit = (text: string | undefined) =>
    text === undefined
      ? undefined
      : readGitModel('prod', new Map([[PATH, text]]), 'gpuops.dev/pool').deployments.get('llama');

  /** [Git's Deployment, the fill Job's state, what the folder's deployment.yaml becomes]. */
  const ROWS: [string, string | undefined, FillState | undefined, 'rendered' | 'git' | 'none'][] = [
    ['a new algorithm, fill running: no Deployment yet', undefined, 'Running', 'none'],
    ['a new algorithm, fill not read yet', undefined, undefined, 'none'],
    ['a new algorithm, fill could not be read', undefined, 'Unknown', 'none'],
    ['a new algorithm, fill failed', undefined, 'Failed', 'none'],
    ['a new algorithm, fill Complete: the Deployment', undefined, 'Complete', 'rendered'],
    ["a running Deployment, fill running: Git's stays", OLD, 'Running', 'git'],
    ['a running Deployment, fill Complete: it gains the cache', OLD, 'Complete', 'rendered'],
  ];

  it.each(ROWS)('%s', (_what, current, state, expected) => {
    const alg = algorithm(cacheWith());
    const job = renderModelCacheFill(alg)!.metadata.name;
    const fills = new Map(state ? [[fillKey('team-a', job), state]] : []);
    const out = holdUntilFilled(render(alg), alg, PATH, inGit(current), fills);
    const deployment = out.find((f) => f.path === PATH)?.content;
    const want = { rendered: render(alg)[0]!.content, git: current, none: undefined }[expected];
    expect(deployment).toBe(want);
    // The fill Job is written whatever the state.
    expect(out.map((f) => f.path)).toContain('clusters/prod/algorithms/llama/model-cache-fill.yaml');
  });

  it('a Deployment in Git that already reads this fill is rendered without a read (a restart, `gpuops plan` on dumps)', () => {
    const alg = algorithm(cacheWith());
    const rendered = render(alg)[0]!.content!;
    expect(
      holdUntilFilled(
        render(alg),
        alg,
        PATH,
        inGit(rendered.replace('replicas: 1', 'replicas: 3')),
        new Map(),
      )[0]!.content,
    ).toBe(rendered);
  });

  it('a Deployment in Git that reads the previous fill waits for the new one', () => {
    const before = algorithm(cacheWith());
    const after = algorithm(cacheWith(FILL.replace('fetch:1.0', 'fetch:1.1')));
    const old = render(before)[0]!.content!;
    expect(holdUntilFilled(render(after), after, PATH, inGit(old), new Map())[0]!.content).toBe(old);
  });

  it('an algorithm without a fill step is never held', () => {
    const alg = algorithm('{claimName: llama-models, mountPath: /models}');
    expect(holdUntilFilled(render(alg), alg, PATH, undefined, new Map())).toEqual(render(alg));
  });

  /** A Deployment whose pod template (or another field) names fill Job `job`, as a person may write it. */
  const LAYOUTS: [string, (job: string) => string, boolean][] = [
    [
      'block style, as gpuops writes it',
      (j) =>
        `kind: Deployment\nspec:\n  template:\n    metadata:\n      annotations:\n        gpuops.dev/model-cache-fill: ${j}\n`,
      true,
    ],
    [
      'flow style',
      (j) =>
        `kind: Deployment\nspec: {template: {metadata: {annotations: {gpuops.dev/model-cache-fill: ${j}}}}}\n`,
      true,
    ],
    [
      'quoted key and value, no newline at the end',
      (j) =>
        `kind: Deployment\nspec:\n  template:\n    metadata:\n      annotations:\n        "gpuops.dev/model-cache-fill": '${j}'`,
      true,
    ],
    [
      'another key order (spec before metadata, the annotation among others)',
      (j) =>
        `spec:\n  template:\n    spec: {containers: []}\n    metadata:\n      annotations:\n        gpuops.dev/model-cache-fill: ${j}\n        team: ml\n      labels: {app: llama}\nkind: Deployment\n`,
      true,
    ],
    [
      'a comment after the value',
      (j) =>
        `kind: Deployment\nspec:\n  template:\n    metadata:\n      annotations:\n        gpuops.dev/model-cache-fill: ${j} # filled on 3 May\n`,
      true,
    ],
    [
      'the same line inside an environment value: not the annotation',
      (j) =>
        `kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: a\n          env:\n            - name: NOTE\n              value: |\n                gpuops.dev/model-cache-fill: ${j}\n`,
      false,
    ],
    [
      "on the Deployment's own metadata, not its pod template's",
      (j) =>
        `kind: Deployment\nmetadata:\n  annotations:\n    gpuops.dev/model-cache-fill: ${j}\nspec:\n  template: {}\n`,
      false,
    ],
    [
      'the annotation names another fill whose name starts the same',
      (j) =>
        `kind: Deployment\nspec:\n  template:\n    metadata:\n      annotations:\n        gpuops.dev/model-cache-fill: ${j}x\n`,
      false,
    ],
  ];

  it.each(LAYOUTS)("Git's Deployment read by its parsed pod annotation: %s", (_what, text, reads) => {
    const alg = algorithm(cacheWith());
    const job = renderModelCacheFill(alg)!.metadata.name;
    const current = inGit(text(job));
    expect(modelCacheReady(alg, current, new Map())).toBe(reads);
    const deployment = holdUntilFilled(render(alg), alg, PATH, current, new Map()).find(
      (f) => f.path === PATH,
    );
    expect(deployment?.content).toBe(reads ? render(alg)[0]!.content : text(job));
  });
});
