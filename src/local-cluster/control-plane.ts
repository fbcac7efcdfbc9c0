/**
 * The real control plane on loopback, each a process from the assets folder: etcd, kube-apiserver
 * (TLS, static tokens, `--authorization-mode=Node,RBAC`, the default admission plugins, which
 * include ResourceQuota and ServiceAccount), kube-controller-manager and kube-scheduler (their
 * identities bound by RBAC's bootstrap roles). Flags follow the kube-apiserver, etcd and
 * controller reference pages; the service CIDR is a name range only (no traffic leaves loopback).
 */
import { request } from 'node:https';
import path from 'node:path';
import type { Credentials } from './credentials.js';
import { fail, freePort, startProcess, type RunningProcess } from './process.js';

/** An HTTPS request to the control plane with its CA and a bearer token: status and body (TLS or connect errors throw). */
export function httpsRequest(
  url: string,
  ca: string,
  token?: string,
  method = 'GET',
  body?: { type: string; text: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    if (body) headers['Content-Type'] = body.type;
    const req = request(url, { ca, method, headers, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: timed out`)));
    req.on('error', reject);
    req.end(body?.text);
  });
}

/** GET `url` with the control plane's CA and a bearer token. */
export const httpsGet = (url: string, ca: string, token?: string) => httpsRequest(url, ca, token);

/** Ports of the control plane (all on 127.0.0.1). */
export interface ControlPlanePorts {
  etcd: number;
  etcdPeer: number;
  apiServer: number;
  controllerManager: number;
  scheduler: number;
}

/** Picks free ports; `apiServer` may be fixed by the caller (then it must be free at start). */
export async function pickPorts(apiServer?: number): Promise<ControlPlanePorts> {
  return {
    etcd: await freePort(),
    etcdPeer: await freePort(),
    apiServer: apiServer ?? (await freePort()),
    controllerManager: await freePort(),
    scheduler: await freePort(),
  };
}

/** Where the processes find their binaries, files and ports. */
export interface ControlPlaneConfig {
  assets: (binary: string) => string;
  dir: string;
  ports: ControlPlanePorts;
  credentials: Credentials;
  /** Seconds between HPA syncs of kube-controller-manager (its default is 15). */
  hpaSyncSeconds?: number;
}

/** etcd's client URL on the loopback interface (plain HTTP: a throw-away test cluster). */
export const etcdUrl = (ports: ControlPlanePorts) => `http://127.0.0.1:${ports.etcd}`;
/** kube-apiserver's URL on the loopback interface (HTTPS with the cluster's own CA). */
export const apiServerUrl = (ports: ControlPlanePorts) => `https://127.0.0.1:${ports.apiServer}`;

/** Starts etcd (`--unsafe-no-fsync`: a test cluster, its data is thrown away). */
export function startEtcd(c: ControlPlaneConfig): Promise<RunningProcess> {
  const client = etcdUrl(c.ports);
  const peer = `http://127.0.0.1:${c.ports.etcdPeer}`;
  return startProcess({
    name: 'etcd',
    bin: c.assets('etcd'),
    args: [
      '--name=default',
      `--data-dir=${path.join(c.dir, 'etcd')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    logFile: path.join(c.dir, 'etcd.log'),
    ports: [c.ports.etcd, c.ports.etcdPeer],
    ready: async () => (await fetch(`${client}/health`)).ok,
  });
}

/** Starts kube-apiserver against the running etcd. */
export function startApiServer(c: ControlPlaneConfig): Promise<RunningProcess> {
  const cr = c.credentials;
  return startProcess({
    name: 'kube-apiserver',
    bin: c.assets('kube-apiserver'),
    args: [
      `--etcd-servers=${etcdUrl(c.ports)}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${c.ports.apiServer}`,
      `--tls-cert-file=${cr.certFile}`,
      `--tls-private-key-file=${cr.keyFile}`,
      `--cert-dir=${path.join(c.dir, 'apiserver-certs')}`,
      `--token-auth-file=${cr.tokenFile}`,
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${cr.saPubFile}`,
      `--service-account-signing-key-file=${cr.saKeyFile}`,
      '--service-cluster-ip-range=10.96.0.0/24',
      // The endpoint of the `kubernetes` Service would be 127.0.0.1, which Endpoints refuse.
      '--endpoint-reconciler-type=none',
      '--allow-privileged=true',
      '--profiling=false',
      // The aggregation layer (the custom metrics API of prometheus-adapter): the front proxy's
      // client certificate and the headers that carry the user it forwards; any name it holds.
      `--requestheader-client-ca-file=${cr.proxyCertFile}`,
      `--proxy-client-cert-file=${cr.proxyCertFile}`,
      `--proxy-client-key-file=${cr.proxyKeyFile}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ],
    logFile: path.join(c.dir, 'kube-apiserver.log'),
    ports: [c.ports.apiServer],
    ready: async () =>
      (await httpsGet(`${apiServerUrl(c.ports)}/readyz`, cr.ca, cr.tokens.admin)).status === 200,
    timeoutMs: 120_000,
  });
}

/** Starts kube-controller-manager (every default controller; no leader election: one replica). */
export function startControllerManager(c: ControlPlaneConfig): Promise<RunningProcess> {
  const cr = c.credentials;
  const kubeconfig = cr.kubeconfigs.controllerManager;
  return startProcess({
    name: 'kube-controller-manager',
    bin: c.assets('kube-controller-manager'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${c.ports.controllerManager}`,
      `--cert-dir=${path.join(c.dir, 'kcm-certs')}`,
      '--leader-elect=false',
      `--service-account-private-key-file=${cr.saKeyFile}`,
      // Each controller as its own ServiceAccount with its `system:controller:*` role, as kubeadm
      // runs it: the `system:kube-controller-manager` role alone may not, e.g., get Nodes.
      '--use-service-account-credentials=true',
      `--root-ca-file=${cr.caFile}`,
      `--horizontal-pod-autoscaler-sync-period=${c.hpaSyncSeconds ?? 15}s`,
    ],
    logFile: path.join(c.dir, 'kube-controller-manager.log'),
    ports: [c.ports.controllerManager],
    ready: async () =>
      (await insecureStatus(`https://127.0.0.1:${c.ports.controllerManager}/healthz`)).status === 200,
  });
}

/** Starts kube-scheduler (the default profile; no leader election). */
export function startScheduler(c: ControlPlaneConfig): Promise<RunningProcess> {
  const kubeconfig = c.credentials.kubeconfigs.scheduler;
  return startProcess({
    name: 'kube-scheduler',
    bin: c.assets('kube-scheduler'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${c.ports.scheduler}`,
      `--cert-dir=${path.join(c.dir, 'scheduler-certs')}`,
      '--leader-elect=false',
    ],
    logFile: path.join(c.dir, 'kube-scheduler.log'),
    ports: [c.ports.scheduler],
    ready: async () =>
      (await insecureStatus(`https://127.0.0.1:${c.ports.scheduler}/healthz`)).status === 200,
  });
}

/** Status of a GET to a loopback server with a certificate it made itself (not verified: a probe). */
export function insecureStatus(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Compacts etcd's history past every revision it held (`/v3/kv/put` of a key outside the API
 * server's `/registry` prefix makes a new revision, `/v3/kv/compaction` compacts up to it), so a
 * watch from any resourceVersion seen before is answered `410 Gone` once the API server's watch
 * cache no longer holds it. Compacting at the current revision alone is not enough: a watch
 * bookmark may already carry that revision, and a watch from it is still valid. Returns the
 * revision compacted to.
 * @throws LocalClusterError when etcd does not answer
 */
export async function compactEtcd(ports: ControlPlanePorts): Promise<number> {
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${etcdUrl(ports)}${p}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) fail('etcd compaction', `POST ${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { header?: { revision?: string } };
  };
  const key = Buffer.from('/gpuops-test/compaction').toString('base64');
  const put = await post('/v3/kv/put', { key, value: Buffer.from(String(Date.now())).toString('base64') });
  const revision = Number(put.header?.revision ?? NaN);
  if (!Number.isFinite(revision)) fail('etcd compaction', 'no revision in the put answer');
  await post('/v3/kv/compaction', { revision: String(revision), physical: true });
  return revision;
}
