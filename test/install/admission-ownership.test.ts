/**
 * gpuops must never write a Service or Deployment over one it does not manage: with a team
 * folder's spec named `api` (or any spec named like a live object), Argo CD or Flux applied
 * gpuops's render over that object and took it over. The shipped ValidatingAdmissionPolicy
 * `gpuops-ownership` makes the API server refuse an update that gives an object gpuops's labels
 * when the live object lacked them. Checked against the Kubernetes schema, and its CEL evaluated
 * (by a conforming CEL evaluator, `@bufbuild/cel`) on each row: the live object (`oldObject`) and
 * what the applier sends (`object`, gpuops's real render).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { run, isCelError } from '@bufbuild/cel';
import { ValidatingAdmissionPolicy } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';
import { ValidatingAdmissionPolicyBinding } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { renderWorkloadFiles } from '../../src/manifests/workloads.js';

const FILE = path.resolve(import.meta.dirname, '../../templates/install/admission-ownership.yaml');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;
const [policy, binding] = parseAllDocuments(readFileSync(FILE, 'utf8')).map((d) => d.toJS() as AnyObj);

/** JSON as CEL sees Kubernetes objects: mappings are maps, whole numbers ints. */
function cel(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cel);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, cel(x)]));
  return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
}

/** The policy's answer to an UPDATE of `old` into `next`: skipped (no match), allowed, or the refusal's message. */
function admit(old: AnyObj, next: AnyObj, resource: string): 'skipped' | 'allowed' | string {
  const vars = { object: cel(next), oldObject: cel(old), request: cel({ resource: { resource } }) };
  const evaluate = (expression: string) => {
    const r = run(expression, vars as never);
    if (isCelError(r))
      throw new Error(`CEL: ${String((r as { message?: string }).message ?? r)}: ${expression}`);
    return r;
  };
  if (!policy.spec.matchConditions.every((c: AnyObj) => evaluate(c.expression) === true)) return 'skipped';
  for (const v of policy.spec.validations)
    if (evaluate(v.expression) !== true) return String(evaluate(v.messageExpression));
  return 'allowed';
}

/** gpuops's render of algorithm `api` in `team-b`: its Deployment and Service. */
let render: { deployment: AnyObj; service: AnyObj };
beforeAll(async () => {
  const p = await loadDefaultPolicy();
  const alg: ResolvedAlgorithm = {
    name: 'api',
    namespace: 'team-b',
    spec: {
      image: 'x:1',
      resources: { gpus: 1 },
      template: { spec: { containers: [{ ports: [{ containerPort: 80 }] }] } },
    },
    scaling: { minReplicas: 1, maxReplicas: 2, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 60 },
    placement: 'auto',
    source: { file: 'algorithms/team-a/api.yaml', line: 1 },
  };
  const files = renderWorkloadFiles({
    algorithm: alg,
    pool: 'short-task',
    policy: p.spec,
    cluster: 'prod',
    templates: loadWorkloadTemplates(),
  });
  const [deployment, service] = files.map((f) => parseAllDocuments(f.content!)[0]!.toJS() as AnyObj);
  render = { deployment, service };
});

const live = (kind: string, labels?: Record<string, string>) => ({
  apiVersion: kind === 'Service' ? 'v1' : 'apps/v1',
  kind,
  metadata: { name: 'api', namespace: 'team-b', ...(labels ? { labels } : {}) },
  spec: {},
});
const MANAGED = { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'api' };

describe('gpuops-ownership: the API server refuses to hand a live object to gpuops', () => {
  it('is a valid ValidatingAdmissionPolicy and binding (Kubernetes schema), denying', () => {
    expect(() => new ValidatingAdmissionPolicy(policy).validate()).not.toThrow();
    expect(() => new ValidatingAdmissionPolicyBinding(binding).validate()).not.toThrow();
    expect([binding.spec.policyName, binding.spec.validationActions]).toEqual([
      policy.metadata.name,
      ['Deny'],
    ]);
  });

  it.each([
    ["another team's Service api (no labels)", 'Service', undefined, 'services'],
    [
      "another team's Deployment api labelled by Helm",
      'Deployment',
      { 'app.kubernetes.io/managed-by': 'Helm' },
      'deployments',
    ],
    [
      'a gpuops object of another algorithm',
      'Service',
      { ...MANAGED, 'gpuops.dev/algorithm': 'other' },
      'services',
    ],
    [
      'managed-by gpuops without the algorithm label',
      'Deployment',
      { 'app.kubernetes.io/managed-by': 'gpuops' },
      'deployments',
    ],
  ])('%s: gpuops render over it is refused', (_, kind, labels, resource) => {
    const next = kind === 'Service' ? render.service : render.deployment;
    expect(admit(live(kind, labels), next, resource)).toBe(
      `gpuops does not manage ${resource} team-b/api (it lacks the labels app.kubernetes.io/managed-by: gpuops and gpuops.dev/algorithm); rename the algorithm, or label the object to hand it to gpuops`,
    );
  });

  it.each([
    [
      'an object gpuops manages: its next render passes',
      live('Service', MANAGED),
      () => render.service,
      'allowed',
    ],
    [
      'a Deployment gpuops manages, scaled by its render',
      live('Deployment', MANAGED),
      () => render.deployment,
      'allowed',
    ],
    [
      "a person's own update of their object is not judged",
      live('Service'),
      () => live('Service', { team: 'b' }),
      'skipped',
    ],
  ])('%s', (_, old, next, want) => {
    expect(admit(old, next(), 'services')).toBe(want);
  });

  it("gpuops's renders carry the labels the policy reads (so it judges every apply of them)", () => {
    for (const o of [render.deployment, render.service]) expect(o.metadata.labels).toMatchObject(MANAGED);
  });

  it('covers updates of Deployments, Services and HPAs only (a create of a new object passes)', () => {
    const rules = policy.spec.matchConstraints.resourceRules.map(
      (r: AnyObj) => `${r.operations}:${r.apiGroups}/${r.resources}`,
    );
    expect(rules).toEqual([
      'UPDATE:apps/deployments',
      'UPDATE:/services',
      'UPDATE:autoscaling/horizontalpodautoscalers',
    ]);
  });
});
