import { Option, type Command } from 'commander';
import { loadRepo } from '../../spec/load.js';
import { readClusterFiles, takeSnapshot } from '../cluster-input.js';
import { buildPlan, formatPlanTable } from '../plan-build.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';

interface PlanFlags {
  repo?: string;
  nodes?: string;
  pods?: string;
  output: 'text' | 'json';
  [key: string]: unknown;
}

/**
 * Registers `gpuops plan --repo DIR [--cluster NAME] [--nodes FILE --pods FILE] [--output json]`:
 * the whole decision, offline and read-only. From the GitOps repo at DIR and a snapshot (the
 * `kubectl get nodes -o json` / `kubectl get pods -A -o json` dumps, or the live cluster without
 * them), prints the pool of every node and the files gpuops would write. Exit 0 (errors in specs
 * are listed, not fatal), 2 on usage errors, 1 when the cluster or a dump cannot be read.
 */
export function register(program: Command): void {
  const cmd: Command = program
    .command('plan')
    .description('print the decision (pools, files) without writing anything')
    .requiredOption('--repo <dir>', 'the GitOps repo (a working copy)')
    .option('--nodes <file>', 'Nodes dump: kubectl get nodes -o json')
    .option('--pods <file>', 'Pods dump: kubectl get pods -A -o json')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'),
    );
  addConnectionOptions(cmd, ['cluster', 'kubeconfig']);
  cmd.action(async (flags: PlanFlags) => {
    if (Boolean(flags.nodes) !== Boolean(flags.pods)) {
      cmd.error('gpuops plan: --nodes and --pods go together (or neither, to read the live cluster)', {
        exitCode: 2,
        code: 'gpuops.usage',
      });
    }
    const settings = resolveSettings(flags);
    let repo;
    try {
      repo = await loadRepo(flags.repo!);
    } catch (err) {
      cmd.error(`gpuops plan: ${(err as Error).message}`, { exitCode: 2, code: 'gpuops.usage' });
    }
    const [snapshot, existing] = await Promise.all([
      takeSnapshot({
        nodesFile: flags.nodes,
        podsFile: flags.pods,
        kubeconfig: settings.kubeconfig,
        poolLabel: repo.policy.spec.pools.labelKey,
        now: new Date(),
      }),
      readClusterFiles(flags.repo!, settings.cluster),
    ]);
    const { output } = buildPlan({ cluster: settings.cluster, repo, snapshot, existing });
    process.stdout.write(
      flags.output === 'json' ? `${JSON.stringify(output, null, 2)}\n` : formatPlanTable(output, snapshot),
    );
    process.exitCode = 0;
  });
}
