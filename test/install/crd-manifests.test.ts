/**
 * The Argo CD Application and the Flux GitRepository + Kustomization people apply from
 * templates/install/ against their CRDs' OpenAPI schemas, through the @kubernetes-models packages
 * generated from those CRDs (argo-cd 2.7.2, flux-cd 2.3.4: the last releases that load on Node 20
 * with kubernetes-models 4.5). A wrong type or a missing required field fails (CRD schemas prune unknown fields rather than
 * refuse them, so a misspelt field is not caught here; kubectl's server-side validation is).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppProject } from '@kubernetes-models/argo-cd/argoproj.io/v1alpha1/AppProject';
import { Application } from '@kubernetes-models/argo-cd/argoproj.io/v1alpha1/Application';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { GitRepository } from '@kubernetes-models/flux-cd/source.toolkit.fluxcd.io/v1/GitRepository';
import { Kustomization } from '@kubernetes-models/flux-cd/kustomize.toolkit.fluxcd.io/v1/Kustomization';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const dir = path.resolve(import.meta.dirname, '../../templates/install');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;
const load = (file: string): AnyObj[] =>
  parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((d) => d.toJS() as AnyObj);

const MODELS: Record<string, new (o: AnyObj) => { validate(): void }> = {
  'argoproj.io/v1alpha1/AppProject': AppProject,
  'argoproj.io/v1alpha1/Application': Application,
  // flux-kustomization.yaml also holds the applier's ServiceAccount, RBAC and first namespace.
  'v1/ServiceAccount': ServiceAccount,
  'v1/Namespace': Namespace,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'source.toolkit.fluxcd.io/v1/GitRepository': GitRepository,
  'kustomize.toolkit.fluxcd.io/v1/Kustomization': Kustomization,
};
const validate = (obj: AnyObj) => {
  const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  expect(Model, `no CRD schema for ${obj.apiVersion} ${obj.kind}`).toBeDefined();
  new Model!(obj).validate();
};

describe('GitOps install manifests against their CRD schemas', () => {
  it.each(['argocd-application.yaml', 'argocd-appproject.yaml', 'flux-kustomization.yaml'])(
    '%s validates',
    (file) => {
      const objects = load(file);
      expect(objects.length).toBeGreaterThan(0);
      for (const obj of objects) expect(() => validate(obj)).not.toThrow();
    },
  );

  it.each([
    [
      'an Application repoURL that is not a string',
      'argocd-application.yaml',
      (o: AnyObj) => (o.spec.source.repoURL = 5),
    ],
    [
      'the Application without a destination',
      'argocd-application.yaml',
      (o: AnyObj) => delete o.spec.destination,
    ],
    [
      'a Kustomization interval that is a number',
      'flux-kustomization.yaml',
      (o: AnyObj) => (o.kind === 'Kustomization' ? (o.spec.interval = 10) : undefined),
    ],
    [
      'a Kustomization without prune',
      'flux-kustomization.yaml',
      (o: AnyObj) => (o.kind === 'Kustomization' ? delete o.spec.prune : undefined),
    ],
  ])('refuses %s', (_, file, mutate) => {
    const objects = load(file);
    for (const o of objects) mutate(o);
    expect(() => objects.forEach(validate)).toThrow();
  });
});
