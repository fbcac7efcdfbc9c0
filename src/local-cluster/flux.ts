/**
 * Flux on the local cluster: its CRDs (the ones the build copied from source-controller's and
 * kustomize-controller's own config/crd/bases), the two controllers as processes outside the
 * cluster (as `flux install` would run them inside it), and the GitRepository and Kustomization of
 * templates/install/flux-kustomization.yaml pointed at the local Git server.
 *
 * source-controller fetches the repository, packs it into an artifact and serves it over HTTP
 * (`--storage-addr`; the URL in the GitRepository's status is built from `--storage-adv-addr`);
 * kustomize-controller downloads that artifact, builds the Kustomization's path (generating a
 * kustomization.yaml when there is none) and applies it with server-side apply as field manager
 * `kustomize-controller`. `reconcileNow` does what `flux reconcile` does: it sets the annotation
 * `reconcile.fluxcd.io/requestedAt` and waits until the controller reports it handled.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../cluster/index.js';
import { kubeObjectApi } from '../gitops-apply/index.js';
import { documentValue } from '../util/index.js';
import { sleep } from '../retry/index.js';
import { fail, freePort, startProcess, type RunningProcess } from './process.js';

/** Field manager of the objects `cluster up` applies itself. */
export const LOCAL_CLUSTER_MANAGER = 'gpuops-local-cluster';
/** The namespace Flux's controllers and objects run in (Flux's default, `flux-system`). */
export const FLUX_NAMESPACE = 'flux-system';
/** The Flux objects shipped with gpuops. */
export const FLUX_TEMPLATE = new URL('../../templates/install/flux-kustomization.yaml', import.meta.url);

/** Objects of a multi-document YAML text. @throws Error naming `source` on a YAML error or an unresolved alias */
export function yamlObjects(text: string, source: string): KubeObject[] {
  return parseAllDocuments(text).flatMap((d) => {
    const parsed = documentValue(d);
    if (!parsed.ok) throw new Error(`${source}: ${parsed.error}`);
    const v = parsed.value as KubeObject | null;
    return v ? [v] : [];
  });
}

/** Applies the CRDs of `dir` and waits until each is Established. */
export async function installFluxCrds(kc: KubeConfig, dir: string): Promise<void> {
  const api = kubeObjectApi(kc);
  const crds = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => yamlObjects(readFileSync(path.join(dir, f), 'utf8'), path.join(dir, f)));
  for (const crd of crds) await api.apply(crd, LOCAL_CLUSTER_MANAGER, true);
  const deadline = Date.now() + 60_000;
  for (const crd of crds) {
    for (;;) {
      const live = await api.read({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name });
      const conditions =
        (live as { status?: { conditions?: { type: string; status: string }[] } })?.status?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) fail('flux CRDs', `${crd.metadata.name} not Established after 60 s`);
      await sleep(200);
    }
  }
}

/** The two Flux controllers. */
export interface FluxControllers {
  /** Base URL of source-controller's artifact server. */
  storageUrl: string;
  processes: RunningProcess[];
}

/** Starts source-controller and kustomize-controller with `kubeconfig`, state under `dir`. */
export async function startFluxControllers(
  assets: (binary: string) => string,
  dir: string,
  kubeconfig: string,
): Promise<FluxControllers> {
  const storage = await freePort();
  mkdirSync(path.join(dir, 'flux-storage'), { recursive: true });
  const ports = { scMetrics: await freePort(), scHealth: await freePort() };
  const kc = { kcMetrics: await freePort(), kcHealth: await freePort() };
  const env = { KUBECONFIG: kubeconfig, RUNTIME_NAMESPACE: FLUX_NAMESPACE };
  const ready = (port: number) => async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
  const source = await startProcess({
    name: 'source-controller',
    bin: assets('source-controller'),
    args: [
      `--storage-path=${path.join(dir, 'flux-storage')}`,
      `--storage-addr=127.0.0.1:${storage}`,
      `--storage-adv-addr=127.0.0.1:${storage}`,
      `--metrics-addr=127.0.0.1:${ports.scMetrics}`,
      `--health-addr=127.0.0.1:${ports.scHealth}`,
      '--enable-leader-election=false',
      '--watch-all-namespaces=true',
      '--log-level=info',
    ],
    env,
    logFile: path.join(dir, 'source-controller.log'),
    ports: [storage, ports.scMetrics, ports.scHealth],
    ready: ready(ports.scHealth),
  });
  const kustomize = await startProcess({
    name: 'kustomize-controller',
    bin: assets('kustomize-controller'),
    args: [
      `--metrics-addr=127.0.0.1:${kc.kcMetrics}`,
      `--health-addr=127.0.0.1:${kc.kcHealth}`,
      '--enable-leader-election=false',
      '--watch-all-namespaces=true',
      '--log-level=info',
    ],
    env,
    logFile: path.join(dir, 'kustomize-controller.log'),
    ports: [kc.kcMetrics, kc.kcHealth],
    ready: ready(kc.kcHealth),
  }).catch(async (err: unknown) => {
    await source.stop();
    throw err;
  });
  return { storageUrl: `http://127.0.0.1:${storage}`, processes: [source, kustomize] };
}

/** What {@link fluxObjects} points the shipped Flux objects at. */
export interface GitOpsSource {
  /** The repository's URL on the local Git server. */
  url: string;
  /** Cluster folder name: the Kustomization builds `./clusters/<cluster>`. */
  cluster: string;
  /** Reconcile interval of both objects (a Go duration, e.g. `10s`). */
  interval: string;
}

/**
 * The GitRepository and Kustomization of templates/install/flux-kustomization.yaml with the URL,
 * path, name and interval of `src`; everything else as shipped.
 */
export function fluxObjects(src: GitOpsSource, template = readFileSync(FLUX_TEMPLATE, 'utf8')): KubeObject[] {
  return yamlObjects(template, FLUX_TEMPLATE.pathname).map((o) => {
    const spec: Record<string, unknown> = { ...(o.spec as Record<string, unknown>), interval: src.interval };
    if (o.kind === 'GitRepository') {
      spec.url = src.url;
      // The CRD's default (60s) was not applied here and source-controller v1.9.6 dereferences
      // spec.timeout unchecked (docs/real-cluster.md): set it as the default would.
      spec.timeout = '60s';
    }
    if (o.kind === 'Kustomization') spec.path = `./clusters/${src.cluster}`;
    const name = o.kind === 'Kustomization' ? `gpuops-${src.cluster}` : o.metadata.name;
    return { ...o, metadata: { ...o.metadata, name }, spec };
  });
}

type Status = { conditions?: { type: string; status: string; message?: string }[] } & Record<string, unknown>;

/**
 * `flux reconcile`: annotates the object with `reconcile.fluxcd.io/requestedAt` and waits until
 * its status has `lastHandledReconcileAt` equal to it and a settled Ready condition (True or
 * False); returns the status.
 * @throws Error when it is not handled within `timeoutMs`
 */
export async function reconcileNow(
  kc: KubeConfig,
  ref: { apiVersion: string; kind: string; name: string; namespace?: string },
  timeoutMs = 60_000,
): Promise<Status> {
  const api = kubeObjectApi(kc);
  const at = new Date().toISOString();
  const namespace = ref.namespace ?? FLUX_NAMESPACE;
  await api.apply(
    {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name: ref.name, namespace, annotations: { 'reconcile.fluxcd.io/requestedAt': at } },
    },
    'flux-client-side-apply',
    true,
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = (await api.read({ ...ref, namespace })) as { status?: Status } | undefined;
    const status = live?.status;
    // Handled, and the Ready condition settled (Flux sets Unknown while it reconciles; its first
    // handling of a new object only adds the finalizer).
    const ready = status?.conditions?.find((c) => c.type === 'Ready');
    if (status?.lastHandledReconcileAt === at && ready && ready.status !== 'Unknown') return status;
    if (Date.now() > deadline)
      throw new Error(
        `${ref.kind} ${namespace}/${ref.name}: reconcile requested at ${at} not handled in ${timeoutMs / 1000} s: ${JSON.stringify(status?.conditions ?? [])}`,
      );
    await sleep(250);
  }
}
