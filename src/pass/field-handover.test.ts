import { describe, expect, it } from 'vitest';
import type { ClusterPatcher, PatchResult } from '../cluster/index.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { deploymentHandOver, type HandOverAnswer } from '../../test/support/handover-results.js';
import { handDeploymentsToGit, handFieldsToGit } from './field-handover.js';

const result = (name: string, ok: boolean, changed: boolean): PatchResult => ({
  kind: 'Node',
  namespace: null,
  name,
  ok,
  changed,
  attempts: changed || !ok ? 1 : 0,
  code: ok ? null : 403,
  message: ok
    ? `Node ${name}: ownership of labels gpuops.dev/pool handed to Git’s applier`
    : `Node ${name}: could not set it: forbidden`,
});

/** A patcher whose hand-over answers by node: 'ok', 'same' (nothing shared any more) or 'denied'. */
function patcher(answers: Record<string, 'ok' | 'same' | 'denied'>) {
  const called: string[] = [];
  const p = {
    releaseToGit: (node: string) => {
      called.push(node);
      const a = answers[node] ?? 'same';
      return Promise.resolve(result(node, a !== 'denied', a === 'ok'));
    },
  } as unknown as ClusterPatcher;
  return { p, called };
}

describe('handFieldsToGit', () => {
  const nodes = [
    nodeInfo('a', { sharedWithGit: true }),
    nodeInfo('b'),
    nodeInfo('c', { sharedWithGit: true }),
    nodeInfo('d', { sharedWithGit: true }),
  ];

  it('asks only for the nodes the snapshot marks; lines for writes and failures, a warning for the failed', async () => {
    const { p, called } = patcher({ a: 'ok', c: 'same', d: 'denied' });
    const warned: unknown[] = [];
    const log = { warn: (o: unknown) => void warned.push(o), info: () => undefined };
    const lines = await handFieldsToGit(p, { dryRun: false, log: log as never }, nodes);
    expect(called).toEqual(['a', 'c', 'd']);
    expect(lines).toEqual([
      'Node a: ownership of labels gpuops.dev/pool handed to Git’s applier',
      'Node d: could not set it: forbidden',
    ]);
    expect(warned).toEqual([{ patches: [result('d', false, false)] }]);
  });

  it('dry-run writes nothing and says what it would do', async () => {
    const { p, called } = patcher({ a: 'ok' });
    expect(await handFieldsToGit(p, { dryRun: true }, nodes)).toEqual([
      'would hand the fields Git’s applier owns too of Node a over to it',
      'would hand the fields Git’s applier owns too of Node c over to it',
      'would hand the fields Git’s applier owns too of Node d over to it',
    ]);
    expect(called).toEqual([]);
  });
});

describe('handDeploymentsToGit', () => {
  const deployments = [
    { namespace: 'algorithms', name: 'serve' },
    { namespace: 'algorithms', name: 'idle' },
    { namespace: 'vision', name: 'detect' },
  ];
  /** A patcher whose Deployment hand-over answers by name, as `patcher` above. */
  function deploymentPatcher(answers: Record<string, HandOverAnswer>) {
    const called: string[] = [];
    const p = {
      releaseDeploymentToGit: (namespace: string, name: string) => {
        called.push(`${namespace}/${name}`);
        return Promise.resolve(deploymentHandOver(namespace, name, answers[name]));
      },
    } as unknown as ClusterPatcher;
    return { p, called };
  }

  it('a new reconciler asks for every Deployment given; lines for writes and failures, a warning naming Deployments', async () => {
    const { p, called } = deploymentPatcher({ serve: 'ok', detect: 'denied' });
    const warned: unknown[][] = [];
    const log = { warn: (...a: unknown[]) => void warned.push(a), info: () => undefined };
    const lines = await handDeploymentsToGit(p, { dryRun: false, log: log as never }, deployments, {
      checks: new Map(),
      nowMs: 0,
    });
    expect(called).toEqual(['algorithms/serve', 'algorithms/idle', 'vision/detect']);
    expect(lines).toEqual([
      'Deployment algorithms/serve: ownership of spec.replicas handed to Git’s applier',
      'Deployment vision/detect: could not set it: forbidden',
    ]);
    expect(warned).toHaveLength(1);
    expect(warned[0]![1]).toMatch(/may not reach these Deployments; tried again next pass/);
  });

  it('dry-run reads and writes nothing', async () => {
    const { p, called } = deploymentPatcher({ serve: 'ok' });
    const checks = new Map();
    expect(await handDeploymentsToGit(p, { dryRun: true }, deployments, { checks, nowMs: 0 })).toEqual([]);
    expect(checks.size).toBe(0);
    expect(called).toEqual([]);
  });
});
