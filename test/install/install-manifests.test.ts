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

  it('grants only the verbs gpuops uses, and never delete on Nodes or write on Pods', () => {
    const role = load('clusterrole.yaml')[0];
    const grants = new Map<string, Set<string>>();
    for (const rule of role.rules) {
      for (const r of rule.resources) grants.set(`${rule.apiGroups[0]}/${r}`, new Set(rule.verbs));
    }
    expect([...grants.get('/nodes')!].sort()).toEqual(['get', 'list', 'patch', 'watch']);
    expect([...grants.get('/pods')!].sort()).toEqual(['get', 'list', 'watch']);
    expect(grants.get('apps/deployments/scale')!.has('patch')).toBe(true);
    expect(grants.get('apps/deployments')!.has('update')).toBe(false);
    for (const verbs of grants.values()) expect(verbs.has('*')).toBe(false);
  });

  it('the controller Deployment probes /healthz and /readyz and runs `gpuops run`', () => {
    const dep = load('deployment.yaml')[0];
    const c = dep.spec.template.spec.containers[0];
    expect(c.args).toEqual(['run']);
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(dep.spec.template.spec.serviceAccountName).toBe(load('serviceaccount.yaml')[0].metadata.name);
  });

  it('the Argo CD Application and Flux Kustomization point at clusters/<cluster>/ ', () => {
    const app = load('argocd-application.yaml')[0];
    expect(app.spec.source.path).toMatch(/^clusters\/[a-z0-9-]+$/);
    const [, flux] = load('flux-kustomization.yaml');
    expect(flux.spec.path).toMatch(/^\.\/clusters\/[a-z0-9-]+$/);
    expect(flux.spec.prune).toBe(true);
  });
});
