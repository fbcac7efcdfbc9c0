import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';

const dir = path.resolve(import.meta.dirname, '../../templates/install');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;
function load(file: string): AnyObj[] {
  return parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((d) => d.toJS() as AnyObj);
}

const MODELS: Record<string, new (o: AnyObj) => { validate(): void }> = {
  Deployment,
  Namespace,
  Service,
  ServiceAccount,
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
};

describe('install manifests', () => {
  const kustomization = load('kustomization.yaml')[0] as { resources: string[] };

  it.each(kustomization.resources)('%s is a valid Kubernetes object per the OpenAPI schema', (file) => {
    for (const obj of load(file)) {
      const Model = MODELS[obj.kind as string];
      expect(Model, `no schema model for ${obj.kind}`).toBeDefined();
      expect(() => new Model!(obj).validate()).not.toThrow();
    }
  });

  it('the patch-mode component is a kustomize Component whose files are valid objects', () => {
    const component = load('components/patch-mode/kustomization.yaml')[0] as {
      kind: string;
      resources: string[];
    };
    expect(component.kind).toBe('Component');
    for (const file of component.resources) {
      for (const obj of load(`components/patch-mode/${file}`)) {
        expect(() => new MODELS[obj.kind as string]!(obj).validate()).not.toThrow();
      }
    }
  });

  it('no wildcard anywhere; Jobs, Deployment scale and standby claims only through a RoleBinding (no ClusterRoleBinding of gpuops-benchmark, gpuops-scale or gpuops-claim); writes only in patch mode', () => {
    const files = [
      ...kustomization.resources,
      'components/patch-mode/clusterrole.yaml',
      'components/patch-mode/clusterrolebinding.yaml',
    ];
    const objects = files.flatMap((f) => load(f));
    const roles = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role');
    for (const r of roles)
      for (const rule of r.rules) {
        for (const field of ['apiGroups', 'resources', 'verbs']) expect(rule[field]).not.toContain('*');
      }
    const grants = (name: string) =>
      roles
        .filter((r) => r.metadata.name === name)
        .flatMap((r) =>
          r.rules.flatMap((rule: AnyObj) =>
            rule.resources.flatMap((res: string) =>
              rule.verbs.map((v: string) => `${v} ${rule.apiGroups[0]}/${res}`),
            ),
          ),
        )
        .sort();
    expect(grants('gpuops')).toEqual([
      'list /nodes',
      'list /pods',
      'list apps/replicasets',
      'list autoscaling/horizontalpodautoscalers',
      'watch /nodes',
      'watch /pods',
      'watch apps/replicasets',
      'watch autoscaling/horizontalpodautoscalers',
    ]);
    expect(grants('gpuops-benchmark')).toEqual([
      'create batch/jobs',
      'delete batch/jobs',
      'get batch/jobs',
      'list batch/jobs',
    ]);
    // Patch mode: Nodes cluster-wide; Deployments' scale, and the Deployment itself for the
    // hand-over of its replicas' ownership, only where a namespace file binds it.
    expect(grants('gpuops-patch')).toEqual(['get /nodes', 'patch /nodes']);
    expect(grants('gpuops-scale')).toEqual([
      'get apps/deployments',
      'get apps/deployments/scale',
      'patch apps/deployments',
      'patch apps/deployments/scale',
    ]);
    // Standby claims: relabel or delete a pod, only where a namespace file binds it.
    expect(grants('gpuops-claim')).toEqual(['delete /pods', 'get /pods', 'patch /pods']);
    const clusterBound = objects
      .filter((o) => o.kind === 'ClusterRoleBinding')
      .map((o) => o.roleRef.name)
      .sort();
    expect(clusterBound).toEqual(['gpuops', 'gpuops-patch']);
  });

  it('the controller Deployment probes /healthz and /readyz and runs `gpuops run`', () => {
    const dep = load('deployment.yaml')[0];
    const c = dep.spec.template.spec.containers[0];
    expect(c.args).toEqual(['run']);
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(dep.spec.template.spec.serviceAccountName).toBe(load('serviceaccount.yaml')[0].metadata.name);
  });

  it('the Argo CD Application reads clusters/<cluster>/ as a directory with recurse, creates no namespace; Flux points at the same path', () => {
    const app = load('argocd-application.yaml')[0];
    expect(app.spec.source.path).toMatch(/^clusters\/[a-z0-9-]+$/);
    expect(app.spec.source.directory).toEqual({ recurse: true });
    expect(app.spec.syncPolicy.syncOptions).not.toContain('CreateNamespace=true');
    const [, flux] = load('flux-kustomization.yaml');
    expect(flux.spec.path).toBe(`./${app.spec.source.path}`);
    expect(flux.spec.prune).toBe(true);
  });
});
