/**
 * The shipped install applied any kind as cluster-admin: the Argo CD Application ran in project
 * `default` and the Flux Kustomization had no ServiceAccount, so a ClusterRoleBinding to
 * `cluster-admin` committed under `clusters/<cluster>/` would be applied. Now Argo CD's project
 * `gpuops` and Flux's `gpuops-applier` allow only the kinds gpuops writes. Checked three ways:
 * every shipped object against its CRD's or Kubernetes' schema; every object gpuops renders
 * (Nodes, Namespaces with their RoleBindings in patch mode, Deployment, Service, HPA, the model
 * cache fill Job) is allowed
 * by the project's rules and by the applier's RBAC (the simulated API server's authorizer); and
 * the foreign objects below are refused.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppProject } from '@kubernetes-models/argo-cd/argoproj.io/v1alpha1/AppProject';
import { Application } from '@kubernetes-models/argo-cd/argoproj.io/v1alpha1/Application';
import { GitRepository } from '@kubernetes-models/flux-cd/source.toolkit.fluxcd.io/v1/GitRepository';
import { Kustomization } from '@kubernetes-models/flux-cd/kustomize.toolkit.fluxcd.io/v1/Kustomization';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/cluster/object.js';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { renderNamespaceFiles } from '../../src/manifests/namespaces.js';
import { renderPrePull } from '../../src/manifests/prepull.js';
import { renderWorkloadFiles } from '../../src/manifests/workloads.js';
import { appProjectRefusal } from './appproject-eval.js';
import { can, canBind, rbacObjects, rbacStore } from './rbac-eval.js';

const INSTALL = path.resolve(import.meta.dirname, '../../templates/install');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;
const load = (file: string): AnyObj[] =>
  parseAllDocuments(readFileSync(path.join(INSTALL, file), 'utf8')).map((d) => d.toJS() as AnyObj);
const APPLIER = { namespace: 'flux-system', name: 'gpuops-applier' };

const MODELS: Record<string, new (o: AnyObj) => { validate(): void }> = {
  'argoproj.io/v1alpha1/AppProject': AppProject,
  'argoproj.io/v1alpha1/Application': Application,
  'source.toolkit.fluxcd.io/v1/GitRepository': GitRepository,
  'kustomize.toolkit.fluxcd.io/v1/Kustomization': Kustomization,
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
};

let policy: Policy;
/** Everything gpuops writes under clusters/prod/ in patch mode with the HPA engine and pre-staging. */
let rendered: KubeObject[];
beforeAll(async () => {
  policy = await loadDefaultPolicy();
  policy.spec.scaling.engine = 'hpa';
  const alg: ResolvedAlgorithm = {
    name: 'serve',
    namespace: 'algorithms',
    spec: {
      image: 'x:1',
      resources: { gpus: 1 },
      template: { spec: { containers: [{ ports: [{ containerPort: 8000 }] }] } },
      modelCache: { claimName: 'models', mountPath: '/models', fill: { image: 'fetch:1' } },
    },
    scaling: { minReplicas: 1, maxReplicas: 2, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 60 },
    placement: 'auto',
    source: { file: 'algorithms/serve.yaml', line: 1 },
  };
  const files = [
    ...renderNamespaceFiles('prod', ['algorithms'], undefined, { scale: true }),
    ...renderWorkloadFiles({
      algorithm: alg,
      pool: 'short-task',
      policy: policy.spec,
      cluster: 'prod',
      templates: loadWorkloadTemplates(),
    }),
  ];
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'gpu-1', labels: { 'gpuops.dev/pool': 'test' } },
  };
  rendered = [
    node as KubeObject,
    ...files.flatMap((f) => parseAllDocuments(f.content!).map((d) => d.toJS() as KubeObject)),
    renderPrePull('short-task', [alg], policy.spec)!,
  ];
});

/** Whether the Flux applier may apply `o` (server-side apply: patch, and create where it creates). */
function fluxAllows(o: KubeObject): boolean {
  const store = rbacStore([
    ...rbacObjects({ dir: INSTALL }),
    ...rbacObjects({ files: [path.join(INSTALL, 'flux-kustomization.yaml')] }),
  ]);
  const [group] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : [''];
  const resource = `${group}/${o.kind.toLowerCase()}s`; // every kind here has the plain plural
  const at = { resource, namespace: o.metadata.namespace ?? '', name: o.metadata.name };
  const verbs = o.kind === 'Node' ? ['get', 'patch'] : ['get', 'patch', 'create'];
  if (!verbs.every((verb) => can(store, APPLIER, { verb, ...at }))) return false;
  const ref = (o as { roleRef?: { kind: string; name: string } }).roleRef;
  return !ref || canBind(store, APPLIER, ref.name, o.metadata.namespace ?? '');
}

const project = () => load('argocd-appproject.yaml')[0];

describe('the shipped applier objects against their schemas', () => {
  it.each(['argocd-appproject.yaml', 'argocd-application.yaml', 'flux-kustomization.yaml'])(
    '%s validates',
    (file) => {
      for (const o of load(file)) {
        const Model = MODELS[`${o.apiVersion}/${o.kind}`];
        expect(Model, `${o.apiVersion} ${o.kind}`).toBeDefined();
        expect(() => new Model!(o).validate()).not.toThrow();
      }
    },
  );

  it('the Application runs in project gpuops; the Kustomization applies as gpuops-applier, which the file creates', () => {
    expect(load('argocd-application.yaml')[0].spec.project).toBe(project().metadata.name);
    const flux = load('flux-kustomization.yaml');
    const kustomization = flux.find((o) => o.kind === 'Kustomization');
    const sa = flux.find((o) => o.kind === 'ServiceAccount');
    expect([sa.metadata.namespace, sa.metadata.name]).toEqual([
      kustomization.metadata.namespace,
      kustomization.spec.serviceAccountName,
    ]);
  });

  it('a schema error is caught (the check can fail)', () => {
    const p = project();
    p.spec.clusterResourceWhitelist = 'Node';
    expect(() => new AppProject(p).validate()).toThrow();
  });
});

describe('everything gpuops writes is applied', () => {
  it('the objects: Node, Namespace, two RoleBindings, Deployment, HPA, model cache fill Job, Service, pre-pull DaemonSet', () => {
    expect(rendered.map((o) => o.kind)).toEqual([
      'Node',
      'Namespace',
      'RoleBinding',
      'RoleBinding',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Job',
      'Service',
      'DaemonSet',
    ]);
  });

  it('Argo CD project gpuops permits each', () => {
    for (const o of rendered)
      expect(appProjectRefusal(project(), o), `${o.kind} ${o.metadata.name}`).toBeNull();
  });

  it('the Flux applier may apply each (RoleBindings: it may bind their roles)', () => {
    for (const o of rendered) expect(fluxAllows(o), `${o.kind} ${o.metadata.name}`).toBe(true);
  });
});

/** Objects a person could commit under clusters/<cluster>/, and whether each applier refuses them. */
const FOREIGN: [string, KubeObject, { argo: boolean; flux: boolean }][] = [
  [
    'a ClusterRoleBinding to cluster-admin',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'pwn' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'algorithms' }],
    } as KubeObject,
    { argo: true, flux: true },
  ],
  [
    'a ClusterRole',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'x' },
    } as KubeObject,
    { argo: true, flux: true },
  ],
  [
    'a Secret',
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'algorithms' } } as KubeObject,
    { argo: true, flux: true },
  ],
  [
    // In the policy's namespace both allow the kind (pre-staging); admission-prepull.yaml refuses
    // any other shape there (admission-prepull.test.ts). Elsewhere neither allows it.
    "a DaemonSet outside the policy's namespace",
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'gpuops-prepull-short-task', namespace: 'team-a' },
    } as KubeObject,
    { argo: true, flux: true },
  ],
  [
    'a DaemonSet in kube-system',
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'gpuops-prepull-short-task', namespace: 'kube-system' },
    } as KubeObject,
    { argo: true, flux: true },
  ],
  [
    'a Deployment in kube-system',
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'kube-system' },
    } as KubeObject,
    { argo: true, flux: true },
  ],
  [
    // Argo CD cannot confine a roleRef (its project lists kinds); RBAC can.
    'a RoleBinding of cluster-admin in an algorithm namespace',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'pwn', namespace: 'algorithms' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    } as KubeObject,
    { argo: false, flux: true },
  ],
];

describe('what gpuops does not write is refused', () => {
  it.each(FOREIGN)('%s', (_, o, refused) => {
    expect(appProjectRefusal(project(), o) !== null, 'Argo CD project').toBe(refused.argo);
    expect(fluxAllows(o), 'Flux applier').toBe(!refused.flux);
  });

  it('the refusal names the rule', () => {
    expect(appProjectRefusal(project(), FOREIGN[0]![1])).toBe(
      "rbac.authorization.k8s.io/ClusterRoleBinding is not in project gpuops's clusterResourceWhitelist",
    );
    expect(appProjectRefusal(project(), FOREIGN[5]![1])).toBe(
      'namespace kube-system is not a destination of project gpuops',
    );
  });
});
