/**
 * The standby set's manifests: the standby Deployment gpuops renders, and the label patches of a
 * claim and a give-back, checked against the selectors the algorithm's Deployment and Service use.
 */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import type { ResolvedAlgorithm, StandbySet } from '../../src/definitions/types.js';
import {
  CLAIMED_FROM_LABEL,
  CLAIMED_UID_ANNOTATION,
  claimPatch,
  giveBackPatch,
  POD_TEMPLATE_HASH,
  renderStandbyDeployment,
  STANDBY_LABEL,
  standbyFile,
  standbyName,
  standbyPath,
  standbyVendor,
} from '../../src/manifests/standby.js';
import { renderDeployment } from '../../src/manifests/workloads.js';
import { mergePatch } from '../../src/sim/patch.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { STANDBY_SET } from '../support/standby-policy.js';
import { templates } from './helpers.js';

const SET: StandbySet = { ...STANDBY_SET, gpus: 2 };

const gpuops = await policyWith((p) => (p.pools.labelKey = 'example.com/pool'));
const policy = gpuops.spec;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;

describe('the standby Deployment', () => {
  it('is named and filed by the set', () => {
    expect(standbyName(SET)).toBe('gpuops-standby-llm');
    expect(standbyPath('prod', SET)).toBe('clusters/prod/standby/llm/deployment.yaml');
    expect(standbyPath('eu-1', { name: 'a' })).toBe('clusters/eu-1/standby/a/deployment.yaml');
  });

  it.each([0, 1, 3])(
    'with %i replicas: on the pool, the set GPUs, probed every second, selected by the set label alone',
    (n) => {
      const d = renderStandbyDeployment(SET, policy, n) as AnyObj;
      expect(() => new Deployment(d).validate()).not.toThrow();
      expect(d.metadata).toMatchObject({ name: 'gpuops-standby-llm', namespace: 'algorithms' });
      expect(d.metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-wave': '0' });
      expect(d.spec.replicas).toBe(n);
      expect(d.spec.selector).toEqual({ matchLabels: { [STANDBY_LABEL]: 'llm' } });
      expect(d.spec.template.metadata.labels).toEqual({
        'app.kubernetes.io/managed-by': 'gpuops',
        [STANDBY_LABEL]: 'llm',
      });
      const pod = d.spec.template.spec;
      expect(pod.nodeSelector).toEqual({ 'example.com/pool': 'short-task' });
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.automountServiceAccountToken).toBe(false);
      const [c] = pod.containers;
      expect(c.image).toBe(SET.image);
      expect(c.ports).toEqual([{ name: 'http', containerPort: 8000, protocol: 'TCP' }]);
      expect(c.readinessProbe).toEqual({
        httpGet: { path: '/ready', port: 8000 },
        periodSeconds: 1,
        failureThreshold: 1,
      });
      expect(c.resources).toEqual({ requests: { 'nvidia.com/gpu': '2' }, limits: { 'nvidia.com/gpu': '2' } });
    },
  );

  const alg = (name: string, vendor?: 'nvidia' | 'amd', namespace = 'algorithms') =>
    ({ name, namespace, spec: vendor ? { gpu: { vendor } } : {} }) as unknown as ResolvedAlgorithm;
  it.each([
    ['AMD algorithms: amd.com/gpu', [alg('bert', 'amd'), alg('llama', 'amd')], 'amd.com/gpu'],
    ['NVIDIA named: nvidia.com/gpu', [alg('bert', 'nvidia'), alg('llama', 'nvidia')], 'nvidia.com/gpu'],
    ['no vendor named (the default): nvidia.com/gpu', [alg('bert'), alg('llama')], 'nvidia.com/gpu'],
    ['only llama defined, AMD: amd.com/gpu', [alg('llama', 'amd')], 'amd.com/gpu'],
    ['an AMD bert of another namespace does not count', [alg('bert', 'amd', 'vision')], 'nvidia.com/gpu'],
    ['no spec of the set: nvidia.com/gpu', [alg('resnet', 'amd')], 'nvidia.com/gpu'],
  ] as const)("asks its algorithms' vendor's GPUs: %s", (_, algorithms, resource) => {
    const d = renderStandbyDeployment(SET, policy, 1, standbyVendor(SET, algorithms)) as AnyObj;
    const [c] = d.spec.template.spec.containers;
    expect(c.resources).toEqual({ requests: { [resource]: '2' }, limits: { [resource]: '2' } });
    expect(standbyFile('prod', SET, policy, 1, standbyVendor(SET, algorithms)).content).toContain(
      `${resource}: "2"`,
    );
  });

  it('asks the scheduler to pack: a preferred pod affinity per host to algorithm pods and to standbys, in every namespace', () => {
    const pod = (renderStandbyDeployment(SET, policy, 2) as AnyObj).spec.template.spec;
    const term = (key: string) => ({
      weight: 100,
      podAffinityTerm: {
        labelSelector: { matchExpressions: [{ key, operator: 'Exists' }] },
        namespaceSelector: {},
        topologyKey: 'kubernetes.io/hostname',
      },
    });
    expect(pod.affinity).toEqual({
      podAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [term('gpuops.dev/algorithm'), term(STANDBY_LABEL)],
      },
    });
    // Preferred only: a standby must still start when no busy node has room.
    expect(pod.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution).toBeUndefined();
    expect(pod.affinity.podAntiAffinity).toBeUndefined();
    // The terms match the pool's pods: an algorithm's replica, a standby, a claimed standby.
    const [alg] = algorithmsFromYaml(algorithmYaml({ name: 'bert', gpus: 2 }), gpuops) as [ResolvedAlgorithm];
    const algPod = (
      renderDeployment({
        algorithm: alg,
        pool: 'short-task',
        policy,
        cluster: 'prod',
        templates: templates(),
      }) as AnyObj
    ).spec.template;
    const standbyLabels = (renderStandbyDeployment(SET, policy, 1) as AnyObj).spec.template.metadata.labels;
    const claimedLabels = (
      mergePatch({ metadata: { labels: standbyLabels } }, claimPatch(SET, 'bert', 'u')) as AnyObj
    ).metadata.labels;
    const matchesTerm = (i: number, labels: Record<string, string>) =>
      pod.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[
        i
      ].podAffinityTerm.labelSelector.matchExpressions.every((e: { key: string }) => e.key in labels);
    expect([matchesTerm(0, algPod.metadata.labels), matchesTerm(1, algPod.metadata.labels)]).toEqual([
      true,
      false,
    ]);
    expect([matchesTerm(0, standbyLabels), matchesTerm(1, standbyLabels)]).toEqual([false, true]);
    expect([matchesTerm(0, claimedLabels), matchesTerm(1, claimedLabels)]).toEqual([true, false]);
    // Only standby sets ask it: an algorithm's own Deployment renders no pod affinity.
    expect(algPod.spec.affinity?.podAffinity).toBeUndefined();
  });

  it('its file is one generated document, byte-stable', () => {
    const a = standbyFile('prod', SET, policy, 2);
    expect(a.path).toBe('clusters/prod/standby/llm/deployment.yaml');
    const content = a.content ?? '';
    expect(content.startsWith('# Generated by gpuops')).toBe(true);
    expect(parseAllDocuments(content).map((d) => d.toJS())).toEqual([
      renderStandbyDeployment(SET, policy, 2),
    ]);
    expect(standbyFile('prod', SET, policy, 2).content).toBe(a.content);
  });
});

describe('claim and give-back patches', () => {
  const standbyPod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'gpuops-standby-llm-7d9f-abcde',
      namespace: 'algorithms',
      labels: {
        'app.kubernetes.io/managed-by': 'gpuops',
        [STANDBY_LABEL]: 'llm',
        [POD_TEMPLATE_HASH]: '7d9f',
      },
    },
  };
  const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
    Object.entries(selector).every(([k, v]) => labels[k] === v);

  it.each(['bert', 'llama'])(
    "a claim for %s: the pod leaves the standby selector and enters the algorithm's Service",
    (name) => {
      const claimed = mergePatch(standbyPod, claimPatch(SET, name, 'uid-1')) as typeof standbyPod & {
        metadata: { annotations: Record<string, string> };
      };
      expect(claimed.metadata.labels).toEqual({
        'app.kubernetes.io/managed-by': 'gpuops',
        'app.kubernetes.io/name': name,
        'gpuops.dev/algorithm': name,
        [CLAIMED_FROM_LABEL]: 'llm',
      });
      // The mark of a claim gpuops made: the pod's own uid (standby-owners.ts).
      expect(claimed.metadata.annotations).toEqual({ [CLAIMED_UID_ANNOTATION]: 'uid-1' });
      const standby = renderStandbyDeployment(SET, policy, 1) as AnyObj;
      expect(matches(standby.spec.selector.matchLabels, claimed.metadata.labels)).toBe(false);
      // The selector gpuops renders for the algorithm's Deployment, which its Service copies.
      const [alg] = algorithmsFromYaml(algorithmYaml({ name, gpus: 2 }), gpuops) as [ResolvedAlgorithm];
      const deployment = renderDeployment({
        algorithm: alg,
        pool: 'short-task',
        policy: gpuops.spec,
        cluster: 'prod',
        templates: templates(),
      }) as AnyObj;
      expect(matches(deployment.spec.selector.matchLabels, claimed.metadata.labels)).toBe(true);
      // ReplicaSets select their own pod-template-hash as well: none adopts a claimed pod.
      expect(claimed.metadata.labels[POD_TEMPLATE_HASH as never]).toBeUndefined();
    },
  );

  it('a give-back restores exactly the standby labels with the current template hash, and drops the claim mark', () => {
    const claimed = mergePatch(standbyPod, claimPatch(SET, 'bert', 'uid-1'));
    const back = mergePatch(claimed, giveBackPatch(SET, '5c6b')) as typeof standbyPod & {
      metadata: { annotations?: Record<string, string> };
    };
    expect(back.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'gpuops',
      [STANDBY_LABEL]: 'llm',
      [POD_TEMPLATE_HASH]: '5c6b',
    });
    expect(back.metadata.annotations ?? {}).toEqual({});
  });

  it('refuses an algorithm outside the set, a claim without the pod uid and an empty template hash', () => {
    expect(() => claimPatch(SET, 'resnet', 'uid-1')).toThrow(
      'standby llm: cannot become resnet (it serves bert, llama)',
    );
    expect(() => claimPatch(SET, 'ber', 'uid-1')).toThrow(/cannot become ber /);
    expect(() => claimPatch(SET, 'bert', '')).toThrow("standby llm: a claim needs the pod's uid");
    expect(() => giveBackPatch(SET, '')).toThrow('standby llm: no current pod-template-hash to give back to');
  });
});
