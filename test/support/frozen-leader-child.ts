/**
 * A replica of `gpuops run` as a real process, for the frozen-leader test: the product's own
 * `startController`, leader election on a real Lease of the simulated cluster, and a pass that
 * says `pass N` on stdout, waits `PASS_MS` (where the test freezes it with SIGSTOP), then pushes
 * one branch of its own through the product's `WorkingCopy` with the write fence, and says
 * `pushed N` or `refused N: <why>`. Arguments: kubeconfig file, repo URL, clone folder, identity,
 * Lease name.
 */
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { kubeLeaseApi } from '../../src/cluster/lease.js';
import { startController } from '../../src/controller/run-controller.js';
import { createLeaderFence } from '../../src/controller/write-fence.js';
import { desiredHash } from '../../src/change-sets/pr-body.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';

const [kubeconfig, repoUrl, dir, identity, leaseName] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const PASS_MS = 1500;
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const fence = createLeaderFence();
const wc = await WorkingCopy.open({
  repoUrl,
  baseBranch: 'main',
  dir,
  beforePush: () => fence.check('push'),
});
const say = (line: string) => process.stdout.write(`${line}\n`);
let n = 0;
const files = (k: number) => [{ path: `clusters/prod/nodes/${identity}.yaml`, content: `pass: ${k}\n` }];
const controller = await startController({
  identity,
  leaseApi: kubeLeaseApi(kc, 'gpuops-system', leaseName),
  leaseDurationSeconds: 2,
  retryPeriodSeconds: 0.2,
  intervalSeconds: 0.1,
  healthPort: 0,
  healthHost: '127.0.0.1',
  fence,
  log: pino({ level: 'silent' }),
  pass: async () => {
    const k = ++n;
    say(`pass ${k}`);
    await new Promise((r) => setTimeout(r, PASS_MS));
    const [result] = await wc.applyAll(
      [
        {
          changeSet: {
            kind: 'pools',
            subject: identity,
            branch: `gpuops/prod/pools/${identity}`,
            title: `pools of ${identity}`,
            body: 'body',
            files: files(k),
            desiredHash: desiredHash(files(k)),
          },
        },
      ],
      { mode: 'pull-request' },
    );
    say(result instanceof Error ? `refused ${k}: ${result.message}` : `pushed ${k}`);
    return { nodes: 0, algorithms: 0, decisions: 0, prs: 0, errors: 0 };
  },
});
process.on('SIGTERM', () => void controller.stop().then(() => process.exit(0)));
