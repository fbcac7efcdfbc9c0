import { Option, type Command } from 'commander';
import type { Snapshot } from '../../cluster/index.js';
import { loadRepo } from '../../definitions/index.js';
import { openDatabase, takeSnapshot } from '../../compose/index.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';
import { GPUOPS } from '../../util/index.js';

interface SnapshotFlags {
  repo?: string;
  nodes?: string;
  pods?: string;
  output: 'text' | 'json';
  [key: string]: unknown;
}

/** Counters of a snapshot for the summary line. */
export function summarize(snapshot: Snapshot): Record<string, number> {
  const gpuNodes = snapshot.nodes.filter((n) => n.gpuCapacity > 0 || n.migAllocatable > 0);
  return {
    nodes: snapshot.nodes.length,
    gpuNodes: gpuNodes.length,
    ready: snapshot.nodes.filter((n) => n.ready).length,
    gpusAllocatable: snapshot.nodes.reduce((s, n) => s + n.gpuAllocatable, 0),
    gpusRequested: snapshot.nodes.reduce((s, n) => s + n.gpuRequested, 0),
    gpusForeign: snapshot.nodes.reduce((s, n) => s + n.foreignGpuRequested, 0),
    pods: snapshot.pods.length,
    managedPods: snapshot.pods.filter((p) => p.managed).length,
    warnings: snapshot.warnings?.length ?? 0,
  };
}

/**
 * Registers `gpuops snapshot`: reads Nodes and Pods from the live cluster (or from
 * `--nodes/--pods` dumps), builds the snapshot and stores it in the database (`--database`).
 * Prints one summary line (`--output json`: the id and counters). Exit 0, 1 when the cluster or
 * database fails, 2 on usage errors.
 */
export function register(program: Command): void {
  const cmd: Command = program
    .command('snapshot')
    .description('take a snapshot of the cluster (nodes, pods, GPUs) and store it in the database')
    .option('--repo <dir>', `GitOps repo whose policy names the pool label (default: ${GPUOPS.pool})`)
    .option('--nodes <file>', 'Nodes dump instead of the live cluster: kubectl get nodes -o json')
    .option(
      '--pods <file>',
      'Pods dump instead of the live cluster: kubectl get pods -A -o json (or pods,replicasets)',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'),
    );
  addConnectionOptions(cmd, ['kubeconfig', 'database']);
  cmd.action(async (flags: SnapshotFlags) => {
    if (Boolean(flags.nodes) !== Boolean(flags.pods)) {
      cmd.error('gpuops snapshot: --nodes and --pods go together', { exitCode: 2, code: 'gpuops.usage' });
    }
    const settings = resolveSettings(flags);
    const poolLabel = flags.repo ? (await loadRepo(flags.repo)).policy.spec.pools.labelKey : undefined;
    const snapshot = await takeSnapshot({
      nodesFile: flags.nodes,
      podsFile: flags.pods,
      kubeconfig: settings.kubeconfig,
      poolLabel: poolLabel ?? GPUOPS.pool,
      now: new Date(),
    });
    const store = await openDatabase(settings.database);
    let id: number;
    try {
      id = await store.saveSnapshot(snapshot);
    } finally {
      await store.close();
    }
    const counts = summarize(snapshot);
    if (flags.output === 'json') {
      process.stdout.write(`${JSON.stringify({ id, takenAt: snapshot.takenAt, ...counts })}\n`);
    } else {
      const fields = Object.entries(counts)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      process.stdout.write(`snapshot ${id} stored at ${snapshot.takenAt}: ${fields}\n`);
      for (const w of snapshot.warnings ?? []) process.stdout.write(`warning: ${w}\n`);
    }
    process.exitCode = 0;
  });
}
