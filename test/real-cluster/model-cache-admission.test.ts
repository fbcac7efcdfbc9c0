/**
 * The model cache fill's confinement on the real control plane (kube-apiserver with RBAC and the
 * ValidatingAdmissionPolicy admission plugin): with templates/install's Flux applier RBAC and
 * `admission-model-cache.yaml` applied as shipped, the applier ServiceAccount (a TokenRequest
 * token) creates gpuops's fill Job in an algorithm namespace; a Job of another shape there (a GPU,
 * the token mounted, without gpuops's fill labels) is refused by the admission policy, whoever
 * sends it — the admin too. gpuops's own ServiceAccount still creates its benchmark Job (with a
 * GPU), and a Job in a namespace gpuops does not manage is not its business.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/cluster/object.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { renderModelCacheFill } from '../../src/manifests/model-cache.js';
import { renderNamespaceFile } from '../../src/manifests/namespaces.js';
import { createAs, installApplierWith, tokenOf } from './admission-support.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;

let h: RealHarness;
let applierToken: string;
let gpuopsToken: string;
let render: AnyObj;

/** POST a Job as `token`: the status and, when refused, the API server's message. */
const create = (job: AnyObj, token: string) => createAs(h, 'batch/v1', 'jobs', job, token);

const admin = () => h.local.credentials.tokens.admin;
/** The render, renamed (each create needs its own name), with `change` applied to its pod. */
function shaped(name: string, change: (pod: AnyObj, job: AnyObj) => void, namespace = 'algorithms'): AnyObj {
  const job = JSON.parse(JSON.stringify(render)) as AnyObj;
  job.metadata = { ...job.metadata, name, namespace };
  for (const labels of [job.metadata.labels, job.spec.template.metadata.labels])
    labels['gpuops.dev/model-cache-fill'] = name;
  change(job.spec.template.spec, job);
  return job;
}
describeReal(
  "the model cache fill's confinement on the real control plane",
  () => {
    beforeAll(async () => {
      h = await startRealHarness({ flux: false, metrics: false });
      // The applier's ServiceAccount and RBAC and its first namespace (`algorithms`, labelled as
      // gpuops writes it), without Flux's own objects; gpuops's benchmark RoleBinding there.
      applierToken = await installApplierWith(h, 'admission-model-cache.yaml');
      const nsFile = renderNamespaceFile('prod', 'algorithms').content!;
      for (const d of parseAllDocuments(nsFile)) await h.apply(d.toJS() as KubeObject);
      gpuopsToken = await tokenOf(h, 'gpuops-system', 'gpuops');
      render = JSON.parse(
        JSON.stringify(
          renderModelCacheFill({
            name: 'bert',
            namespace: 'algorithms',
            spec: {
              image: 'registry.example.com/ml/bert:1',
              resources: { gpus: 1 },
              template: { spec: { securityContext: { runAsUser: 1000, fsGroup: 1000 } } },
              modelCache: {
                claimName: 'bert-models',
                mountPath: '/models',
                fill: { image: 'registry.example.com/ml/fetch:1', args: ['bert-base'] },
              },
            },
          } as unknown as ResolvedAlgorithm),
        ),
      );
      // The API server compiles a new admission policy asynchronously: wait until it refuses.
      let probe = 0;
      await until('gpuops-model-cache is in force', async () => {
        const r = await create(
          shaped(`probe-${probe++}`, (p) => delete p.automountServiceAccountToken),
          admin(),
        );
        return r.status === 422 || r.status === 403;
      });
    }, 240_000);
    afterAll(async () => {
      await h?.close();
    });

    it("the applier creates gpuops's fill Job in the algorithm namespace", async () => {
      expect(await create(render, applierToken)).toEqual({ status: 201, message: '' });
    });

    it.each<[string, (p: AnyObj, j: AnyObj) => void, string]>([
      [
        'a GPU',
        (p) => (p.containers[0].resources = { limits: { 'nvidia.com/gpu': '1' } }),
        'asks for CPU, memory and ephemeral storage only (no GPU)',
      ],
      [
        'the token mounted',
        (p) => delete p.automountServiceAccountToken,
        "a model cache fill Job's pod restarts Never and uses no host namespace, ServiceAccount, token",
      ],
      [
        "no gpuops's fill label",
        (_p, j) => delete j.metadata.labels['gpuops.dev/model-cache-fill'],
        'only gpuops model cache fill Jobs may run here',
      ],
      [
        'privilege escalation allowed',
        (p) => (p.containers[0].securityContext.allowPrivilegeEscalation = true),
        'its container unprivileged, without privilege escalation',
      ],
    ])('admission refuses %s, to the applier and to the admin', async (name, change, message) => {
      for (const [who, t] of [
        ['applier', applierToken],
        ['admin', admin()],
      ] as const) {
        const slug = name
          .replace(/[^a-z]+/gi, '-')
          .toLowerCase()
          .replace(/^-|-$/g, '');
        const r = await create(shaped(`${who}-${slug}`, change), t);
        expect(r.status).toBe(403);
        expect(r.message).toContain('ValidatingAdmissionPolicy');
        expect(r.message).toContain(message);
      }
    });

    it("gpuops's own benchmark Job (a GPU, no fill label) is not judged; elsewhere no Job is", async () => {
      const bench = shaped('bench-serve-1', (p, j) => {
        delete j.metadata.labels['gpuops.dev/model-cache-fill'];
        delete j.spec.template.metadata.labels['gpuops.dev/model-cache-fill'];
        p.containers[0].resources = { limits: { 'nvidia.com/gpu': '1' } };
      });
      expect(await create(bench, gpuopsToken)).toEqual({ status: 201, message: '' });
      expect(
        (
          await create(
            shaped('bench-serve-2', () => undefined, 'default'),
            admin(),
          )
        ).status,
      ).toBe(201);
      const gpu = shaped(
        'gpu-job',
        (p) => (p.containers[0].resources = { limits: { 'nvidia.com/gpu': '1' } }),
      );
      expect((await create(gpu, admin())).status).toBe(403);
      expect(await create({ ...gpu, metadata: { ...gpu.metadata, namespace: 'default' } }, admin())).toEqual({
        status: 201,
        message: '',
      });
    });
  },
  { flux: false },
);
