/**
 * The custom metrics API of the local cluster: prometheus-adapter (built by scripts/k8s/build.sh)
 * serving `custom.metrics.k8s.io` from the Prometheus that scrapes the dcgm-exporter pages, so the
 * real HorizontalPodAutoscaler of kube-controller-manager can scale on `DCGM_FI_DEV_GPU_UTIL` per
 * pod, as on a cluster with NVIDIA's GPU Operator and the adapter installed.
 *
 * kube-apiserver reaches it through the aggregation layer: an APIService names a Service, which
 * kube-apiserver resolves (without `--enable-aggregator-routing`) to the Service's address. No
 * kube-proxy runs here and Endpoints refuse loopback addresses, so the Service is an ExternalName
 * `localhost` and the APIService carries the adapter's port; kube-apiserver resolves an
 * ExternalName Service to `https://<externalName>:<APIService port>` and verifies the Service's
 * DNS name (`prometheus-adapter.custom-metrics.svc`). The adapter serves with a certificate made
 * at start for that name, which the APIService's `caBundle` holds.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { selfSignedCert } from '../sim/index.js';
import { httpsRequest } from './control-plane.js';
import type { ApiAccess } from './dcgm-exporters.js';
import { fail, freePort, reasonFromLog, startProcess, type RunningProcess } from './process.js';

/** The binary scripts/k8s/build.sh builds from sigs.k8s.io/prometheus-adapter/cmd/adapter. */
export const ADAPTER_BINARY = 'prometheus-adapter';
const NAMESPACE = 'custom-metrics';
const SERVICE = 'prometheus-adapter';
const API_SERVICE = 'v1beta1.custom.metrics.k8s.io';

/**
 * The adapter's rule: `DCGM_FI_DEV_GPU_UTIL` of a pod's GPUs (dcgm-exporter's `namespace` and
 * `pod` labels) as the pods metric of the same name, averaged over the pod's GPUs (percent).
 * prometheus-adapter's config format: docs/config.md of its repository.
 */
export const ADAPTER_RULES = JSON.stringify({
  rules: [
    {
      seriesQuery: 'DCGM_FI_DEV_GPU_UTIL{namespace!="",pod!=""}',
      resources: { overrides: { namespace: { resource: 'namespace' }, pod: { resource: 'pod' } } },
      name: { matches: '^DCGM_FI_DEV_GPU_UTIL$', as: 'DCGM_FI_DEV_GPU_UTIL' },
      metricsQuery: 'avg(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)',
    },
  ],
});

async function admin(a: ApiAccess, p: string, method: string, body?: unknown) {
  const res = await httpsRequest(
    `${a.server}${p}`,
    a.ca,
    a.token,
    method,
    body === undefined ? undefined : { type: 'application/json', text: JSON.stringify(body) },
  );
  if (res.status >= 300)
    fail('prometheus-adapter', `${method} ${p}: ${res.status} ${res.body.slice(0, 300)}`);
  return res;
}

/**
 * Starts the adapter (as `kubeconfig`'s user) against `prometheusUrl`, registers its APIService
 * and waits until kube-apiserver reports it Available and it lists the GPU metric.
 * @throws LocalClusterError naming the step, with the adapter's last log line
 */
export async function startMetricsAdapter(
  bin: string,
  dir: string,
  kubeconfig: string,
  prometheusUrl: string,
  a: ApiAccess,
): Promise<RunningProcess> {
  // kube-apiserver verifies it for the Service's name (`<service>.<namespace>.svc`), whatever address it dials.
  const serving = selfSignedCert([`${SERVICE}.${NAMESPACE}.svc`, 'localhost', '127.0.0.1']);
  const file = (n: string) => path.join(dir, n);
  writeFileSync(file('adapter.crt'), serving.cert);
  writeFileSync(file('adapter.key'), serving.key, { mode: 0o600 });
  writeFileSync(file('adapter-rules.yaml'), ADAPTER_RULES);
  const port = await freePort();
  const proc = await startProcess({
    name: 'prometheus-adapter',
    bin,
    args: [
      `--prometheus-url=${prometheusUrl}`,
      `--config=${file('adapter-rules.yaml')}`,
      `--lister-kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--tls-cert-file=${file('adapter.crt')}`,
      `--tls-private-key-file=${file('adapter.key')}`,
      // Series of new pods are found within a second (its default relists every 10 minutes).
      '--metrics-relist-interval=1s',
      '--v=1',
    ],
    logFile: file('prometheus-adapter.log'),
    ports: [port],
    ready: async () => {
      const res = await httpsRequest(`https://127.0.0.1:${port}/readyz`, serving.cert);
      return res.status === 200 || res.status === 401 || res.status === 403;
    },
  });
  try {
    await admin(a, '/api/v1/namespaces', 'POST', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NAMESPACE },
    });
    await admin(a, `/api/v1/namespaces/${NAMESPACE}/services`, 'POST', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: SERVICE, namespace: NAMESPACE },
      spec: { type: 'ExternalName', externalName: 'localhost' },
    });
    await admin(a, '/apis/apiregistration.k8s.io/v1/apiservices', 'POST', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: API_SERVICE },
      spec: {
        group: 'custom.metrics.k8s.io',
        version: 'v1beta1',
        service: { namespace: NAMESPACE, name: SERVICE, port },
        caBundle: Buffer.from(serving.cert).toString('base64'),
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    });
    await waitAvailable(a, file('prometheus-adapter.log'));
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return proc;
}

/** The APIService's `Available` condition, as kube-apiserver's availability check words it. */
async function availability(a: ApiAccess): Promise<string> {
  const res = await httpsRequest(
    `${a.server}/apis/apiregistration.k8s.io/v1/apiservices/${API_SERVICE}`,
    a.ca,
    a.token,
  );
  type C = { type: string; status: string; reason?: string; message?: string };
  const conds = (JSON.parse(res.body) as { status?: { conditions?: C[] } }).status?.conditions ?? [];
  const c = conds.find((x) => x.type === 'Available');
  return c ? `Available=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}` : 'no Available condition yet';
}

async function waitAvailable(a: ApiAccess, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    const res = await httpsRequest(`${a.server}/apis/custom.metrics.k8s.io/v1beta1`, a.ca, a.token);
    if (res.status === 200) return;
    last = `${res.status} ${res.body.slice(0, 200).trim()}`;
    await new Promise((r) => setTimeout(r, 500));
  }
  const log = existsSync(logFile) ? reasonFromLog(readFileSync(logFile, 'utf8')) : '(no log)';
  fail(
    'prometheus-adapter',
    `the custom metrics API did not answer in 60 s (last: ${last}; APIService ${await availability(a)}; adapter log: ${log})`,
  );
}
