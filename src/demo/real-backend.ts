/**
 * The demo on the real control plane (`gpuops demo --real`): kube-apiserver, the controller
 * manager and the scheduler built by scripts/k8s/build.sh, KWOK playing the mixed fleet, Flux
 * applying the demo's GitOps repo, Prometheus scraping dcgm-exporter pages drawn by the load
 * model, and gpuops as its ServiceAccount with the shipped RBAC.
 *
 * Real time cannot be moved ahead, so the demo runs `speed` times faster than its story: benchmark
 * Jobs run `seconds / speed` (their containers report the full run time in their termination
 * message, as a benchmark that times itself), the demo policy's windows and cooldowns are divided
 * by `speed` ({@link scaledExamples}), and the scenario's waits sleep `seconds / speed`.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseDocument } from 'yaml';
import { compose } from '../compose/index.js';
import { settingsWith } from '../config/index.js';
import { demoHostSettings } from './deps.js';
import { nodeGpuCount } from '../sim/index.js';
import type { KubeObject } from '../sim/index.js';
import {
  httpsGet,
  installGpuopsRbac,
  issuerOf,
  serviceAccountKubeconfig,
  startLocalCluster,
} from '../local-cluster/index.js';
import { sleep } from '../retry/index.js';
import { kubeObjectApi } from '../gitops-apply/index.js';
import type { DemoBackend } from './backend.js';
import { DEMO_FLEET_DIR } from './cluster.js';
import type { RealDemoStarter } from './scenario.js';
import { demoClaims, demoTeamObjects } from './team-objects.js';

/** The shipped default policy's `pools.returnAfterSeconds` (policies/default.yaml). */
const DEFAULT_RETURN_AFTER_SECONDS = 1800;

/**
 * Copies the examples folder `from` to `to` with policies/demo.yaml's durations divided by
 * `speed` (whole seconds, at least 1; the utilisation window at least 5, so Prometheus's 1 s
 * scrapes give it samples) and `pools.returnAfterSeconds` set to the default's divided by `speed`.
 */
export function scaledExamples(from: string, to: string, speed: number): void {
  cpSync(from, to, { recursive: true });
  const file = path.join(to, 'policies', 'demo.yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const scale = (keys: string[], min = 1) => {
    const v = doc.getIn(keys);
    if (typeof v === 'number') doc.setIn(keys, Math.max(min, Math.round(v / speed)));
  };
  scale(['spec', 'scaling', 'windowSeconds'], 5);
  for (const dir of ['scaleUp', 'scaleDown'])
    for (const k of ['cooldownSeconds', 'stabilizationWindowSeconds']) scale(['spec', 'scaling', dir, k], 0);
  doc.setIn(['spec', 'pools', 'returnAfterSeconds'], Math.ceil(DEFAULT_RETURN_AFTER_SECONDS / speed));
  writeFileSync(
    file,
    `# Durations divided by ${speed} for gpuops demo --real (real time runs ${speed}x the story).\n${doc.toString()}`,
  );
}

async function list(server: string, ca: string, token: string, p: string): Promise<KubeObject[]> {
  const res = await httpsGet(`${server}${p}`, ca, token);
  if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${res.body.slice(0, 200)}`);
  return (JSON.parse(res.body) as { items: KubeObject[] }).items;
}

/**
 * Creates what the examples' team owns (team-objects.ts) as the field manager `demo-team`, and
 * waits until the PersistentVolume controller has bound each claim (at most 60 s).
 * @throws Error naming the claims still unbound
 */
async function createTeamObjects(kc: KubeConfig, get: (p: string) => Promise<KubeObject>): Promise<void> {
  const api = kubeObjectApi(kc);
  for (const o of demoTeamObjects()) await api.apply(o, 'demo-team', true);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const phases = await Promise.all(
      demoClaims().map(async (c) => {
        const [ns, name] = c.split('/');
        const pvc = await get(`/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}`);
        return [c, (pvc.status as { phase?: string } | undefined)?.phase] as const;
      }),
    );
    const unbound = phases.filter(([, phase]) => phase !== 'Bound').map(([c]) => c);
    if (unbound.length === 0) return;
    if (Date.now() > deadline) throw new Error(`claims not Bound after 60 s: ${unbound.join(', ')}`);
    await sleep(250);
  }
}

/** The starter `runDemo({ real })` takes: the local cluster at `speed`, connected to the demo's origin. */
export function realDemo(speed: number, onStep: (step: string) => void = () => {}): RealDemoStarter {
  return async (o) => {
    const local = await startLocalCluster({ fleetDir: DEMO_FLEET_DIR, speed, onStep });
    try {
      const gitops = await local.connectGitOps(o.origin, o.cluster, '1h');
      await installGpuopsRbac(local.kc);
      const { server } = local;
      const { ca } = local.credentials;
      const token = local.credentials.tokens.admin;
      await createTeamObjects(local.kc, async (p) => {
        const res = await httpsGet(`${server}${p}`, ca, token);
        if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${res.body.slice(0, 200)}`);
        return JSON.parse(res.body) as KubeObject;
      });
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(await serviceAccountKubeconfig(issuerOf(local)));
      const settings = settingsWith({
        repoUrl: o.origin,
        cluster: o.cluster,
        database: o.database,
        prometheusUrl: local.prometheusUrl ?? undefined,
        ...demoHostSettings(o.gitlab),
      });
      const { deps } = await compose(settings, {
        kubeConfig,
        cacheDir: o.cacheDir,
        log: o.log,
        onBenchmarkProgress: o.onBenchmarkProgress,
      });
      const nodes = await list(server, ca, token, '/api/v1/nodes');
      const started = Date.now();
      const backend: DemoBackend = {
        load: local.load,
        describe: () =>
          `the real control plane at ${server} (${local.versions.split('\n').join(', ')}): KWOK plays ${nodes.length} nodes (${nodes.filter((n) => nodeGpuCount(n) > 0).length} with GPUs), Flux applies the GitOps repo, Prometheus scrapes the dcgm-exporter pages; the story runs ${speed}x real time`,
        now: () => new Date(started + (Date.now() - started) * speed),
        advance: (seconds) => sleep((seconds * 1000) / speed),
        view: async () => {
          const [n, pods, deployments, services] = await Promise.all(
            ['/api/v1/nodes', '/api/v1/pods', '/apis/apps/v1/deployments', '/api/v1/services'].map((p) =>
              list(server, ca, token, p),
            ),
          );
          return { nodes: n!, pods: pods!, deployments: deployments!, services: services! };
        },
        sync: async () => {
          try {
            return {
              line: `Flux applied ${await gitops.reconcile()} of clusters/${o.cluster}/`,
              problems: [],
            };
          } catch (err) {
            return { line: 'Flux did not apply main', problems: [`sync: ${(err as Error).message}`] };
          }
        },
        // The Deployment controller, the scheduler and KWOK act within a second or two.
        settle: () => sleep(2000),
        close: () => local.stop(),
      };
      return { backend, deps };
    } catch (err) {
      await local.stop();
      throw err;
    }
  };
}
