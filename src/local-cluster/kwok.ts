/**
 * KWOK on the local cluster: one `kwok` process that plays the kubelet of every node annotated
 * `kwok.x-k8s.io/node: fake` (its node leases, status and its pods' lifecycle, by the Stages of
 * kwok-stages.ts), and the fleet it plays: a dump's nodes and pods created through the API server.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeObject } from '../sim/index.js';
import { sleep } from '../retry/index.js';
import { httpsRequest } from './control-plane.js';
import type { ApiAccess } from './dcgm-exporters.js';
import { KWOK_NODE_ANNOTATION } from './fleet.js';

import { kwokStages } from './kwok-stages.js';
import { fail, freePort, startProcess, type RunningProcess } from './process.js';

/** Starts KWOK; Job pods run `seconds / speed` real seconds. */
export async function startKwok(
  assets: (binary: string) => string,
  dir: string,
  kubeconfig: string,
  speed = 1,
): Promise<RunningProcess> {
  const config = path.join(dir, 'kwok.yaml');
  writeFileSync(config, kwokStages(speed));
  const port = await freePort();
  return startProcess({
    name: 'kwok',
    bin: assets('kwok'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--config=${config}`,
      `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
      '--cidr=10.244.0.0/16',
      '--node-ip=10.0.0.1',
      `--server-address=127.0.0.1:${port}`,
      '--node-lease-duration-seconds=40',
    ],
    logFile: path.join(dir, 'kwok.log'),
    ports: [port],
    ready: async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok,
  });
}

const json = (o: unknown) => ({ type: 'application/json', text: JSON.stringify(o) });
const mergePatch = (o: unknown) => ({ type: 'application/merge-patch+json', text: JSON.stringify(o) });

/**
 * Creates namespaces, nodes (then their status, through the status subresource) and pods, as the
 * admin. A pod is retried while its namespace has no `default` ServiceAccount yet (the
 * ServiceAccount admission plugin refuses it until the controller-manager made one).
 * @throws LocalClusterError naming the object that cannot be created
 */
export async function createFleet(
  api: ApiAccess,
  fleet: { namespaces: string[]; nodes: KubeObject[]; pods: KubeObject[] },
): Promise<void> {
  const call = async (what: string, method: string, p: string, body: { type: string; text: string }) => {
    for (let attempt = 0; ; attempt++) {
      const res = await httpsRequest(`${api.server}${p}`, api.ca, api.token, method, body);
      if (res.status < 300) return;
      const waitingForAccount = /serviceaccount/i.test(res.body) && attempt < 200;
      if (!waitingForAccount) fail('fleet', `cannot create ${what}: ${res.status} ${res.body.slice(0, 300)}`);
      await sleep(100);
    }
  };
  for (const ns of fleet.namespaces)
    await call(
      `Namespace ${ns}`,
      'POST',
      '/api/v1/namespaces',
      json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
    );
  for (const n of fleet.nodes) {
    // Capacity and allocatable through the status subresource (KWOK keeps them when it
    // initialises the node; KWOK does not take over a node annotated after its creation).
    const name = n.metadata.name;
    await call(`Node ${name}`, 'POST', '/api/v1/nodes', json({ ...n, status: undefined }));
    await call(
      `Node ${name} status`,
      'PATCH',
      `/api/v1/nodes/${name}/status`,
      mergePatch({ status: n.status }),
    );
  }
  for (const p of fleet.pods) {
    const ns = p.metadata.namespace ?? 'default';
    await call(`Pod ${ns}/${p.metadata.name}`, 'POST', `/api/v1/namespaces/${ns}/pods`, json(p));
  }
}
