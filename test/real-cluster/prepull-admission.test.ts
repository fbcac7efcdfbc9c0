/**
 * Pre-staging's confinement on the real control plane (kube-apiserver with RBAC and the
 * ValidatingAdmissionPolicy admission plugin): with templates/install's Flux applier RBAC and
 * `admission-prepull.yaml` applied as shipped, the applier ServiceAccount (a TokenRequest token)
 * creates gpuops's pre-pull DaemonSet in the policy's namespace; a DaemonSet in another namespace
 * or in kube-system is refused by RBAC (403), and one of another shape in the policy's namespace
 * (privileged, a hostPath, a GPU) by the admission policy, whoever sends it — the admin too. A
 * DaemonSet in a namespace gpuops does not manage is not its business.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { renderPrePull } from '../../src/manifests/prepull.js';
import { createAs, installApplierWith } from './admission-support.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;
let h: RealHarness;
let applierToken: string;
let render: AnyObj;

/** POST a DaemonSet as `token`: the status and, when refused, the API server's message. */
const create = (ds: AnyObj, token: string) => createAs(h, 'apps/v1', 'daemonsets', ds, token);

const admin = () => h.local.credentials.tokens.admin;
const named = (ds: AnyObj, name: string, namespace = ds.metadata.namespace) => ({
  ...ds,
  metadata: { ...ds.metadata, name, namespace },
});
function shaped(name: string, change: (pod: AnyObj) => void): AnyObj {
  const ds = named(JSON.parse(JSON.stringify(render)) as AnyObj, name);
  change(ds.spec.template.spec);
  return ds;
}

describeReal(
  "pre-staging's confinement on the real control plane",
  () => {
    beforeAll(async () => {
      h = await startRealHarness({ flux: false, metrics: false });
      // The applier's ServiceAccount and RBAC, and its first namespace, without Flux's own objects.
      await h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
      applierToken = await installApplierWith(h, 'admission-prepull.yaml');
      const policy = (await loadDefaultPolicy()).spec;
      render = renderPrePull(
        'short-task',
        [
          {
            namespace: policy.namespace,
            spec: { image: 'registry.example.com/ml/bert:1', resources: { gpus: 1 } },
          },
        ],
        policy,
      );
      // The API server compiles a new admission policy asynchronously: wait until it refuses.
      await until('gpuops-prepull is in force', async () => {
        const r = await create(
          shaped('probe', () => undefined),
          admin(),
        );
        return r.status === 422 || r.status === 403;
      });
    }, 240_000);
    afterAll(async () => {
      await h?.close();
    });

    it("the applier creates gpuops's pre-pull DaemonSet in the policy's namespace", async () => {
      expect(await create(render, applierToken)).toEqual({ status: 201, message: '' });
    });

    it.each([
      ['team-a', 'another algorithm namespace'],
      ['kube-system', 'kube-system'],
    ])('RBAC refuses the applier a DaemonSet in %s (%s)', async (namespace) => {
      const r = await create(named(render, 'gpuops-prepull-long-task', namespace), applierToken);
      expect(r.status).toBe(403);
      expect(r.message).toContain(
        `User "system:serviceaccount:flux-system:gpuops-applier" cannot create resource "daemonsets" in API group "apps" in the namespace "${namespace}"`,
      );
    });

    it.each<[string, AnyObj | (() => AnyObj), string]>([
      [
        'a privileged pull',
        () =>
          shaped(
            'gpuops-prepull-long-task',
            (p) => (p.initContainers[1].securityContext = { privileged: true }),
          ),
        'every container of a pre-pull DaemonSet runs unprivileged',
      ],
      [
        'a hostPath volume',
        () =>
          shaped('gpuops-prepull-long-task', (p) =>
            p.volumes.push({ name: 'host', hostPath: { path: '/' } }),
          ),
        'resource claim or volume but emptyDir (no hostPath)',
      ],
      [
        'a GPU',
        () =>
          shaped(
            'gpuops-prepull-long-task',
            (p) => (p.containers[0].resources.limits['nvidia.com/gpu'] = '1'),
          ),
        'asks for CPU and memory only (no GPU)',
      ],
      [
        'another name',
        () => named(render, 'node-exporter'),
        'DaemonSet algorithms/node-exporter: only gpuops-prepull-long-task and gpuops-prepull-short-task',
      ],
    ])('admission refuses %s, to the applier and to the admin', async (_name, ds, message) => {
      const object = typeof ds === 'function' ? ds() : ds;
      for (const token of [applierToken, admin()]) {
        const r = await create(object, token);
        expect(r.status).toBe(403);
        expect(r.message).toContain('ValidatingAdmissionPolicy');
        expect(r.message).toContain(message);
      }
    });

    it('a DaemonSet in a namespace gpuops does not manage is not judged', async () => {
      const privileged = shaped(
        'node-agent',
        (p) => (p.initContainers[1].securityContext = { privileged: true }),
      );
      expect((await create(privileged, admin())).status).toBe(403);
      expect(await create(named(privileged, 'node-agent', 'default'), admin())).toEqual({
        status: 201,
        message: '',
      });
    });
  },
  { flux: false },
);
