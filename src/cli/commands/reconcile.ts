import { Option, type Command } from 'commander';
import { settingsSecrets } from '../../config/index.js';
import { createLogger } from '../../controller/index.js';
import type { PassResult } from '../../pass/index.js';
import { formatStandbyOutcomes } from '../../pass/index.js';
import { createReconciler, dryRunDatabase } from '../../compose/index.js';
import { formatPlanTable, planReport } from '../plan-build.js';
import { addConnectionOptions, resolveSettings, UsageError } from '../settings.js';
import { escapeControl } from '../../util/index.js';
import { newClusterRefusal } from '../cluster-choice.js';
import { onInterrupt } from '../interrupt.js';

interface ReconcileFlags {
  once?: boolean;
  newCluster?: boolean;
  dryRun?: boolean;
  output: 'text' | 'json';
  logLevel: string;
  [key: string]: unknown;
}

/**
 * The human summary of one pass: the plan tables, then what was written (or would be), then the
 * standby pods claimed, given back or deleted (`formatStandbyOutcomes`); each line's control
 * characters escaped ({@link escapeControl}).
 */
export function formatPassResult(r: PassResult, dryRun: boolean): string {
  const out: string[] = [];
  const lines = formatPlanTable(r.plan, r.snapshot).split('\n');
  out.push(...lines.filter((l) => !/^files:|^ {2}(create|update|delete) /.test(l)));
  out.push(dryRun ? 'change sets (dry run: nothing written):' : 'change sets:');
  if (r.writeBack.length === 0) out.push('  none: Git already holds the desired state');
  for (const w of r.writeBack) {
    const pr = w.pullRequest?.url ?? (w.pullRequest?.number ? `#${w.pullRequest.number}` : '');
    out.push(`  ${w.action.padEnd(14)} ${w.branch} ${pr} ${w.reason}: ${w.message}`.trimEnd());
    for (const f of w.files) out.push(`      ${f.change.padEnd(6)} ${f.path}`);
    for (const warning of w.warnings ?? []) out.push(`      warning: ${warning}`);
  }
  for (const p of r.patches) out.push(`  patch ${p}`);
  out.push(...formatStandbyOutcomes(r.standby ?? [], dryRun));
  return `${out.map(escapeControl).join('\n')}\n`;
}

/**
 * Registers `gpuops reconcile --once [--dry-run]`: one level-triggered pass against the live
 * cluster and Git. Exit 0 when the pass ran (spec errors are reported, not fatal), 1 when it
 * failed (cluster or repo unreachable, or any write-back failed), 2 on usage errors (a bad flag,
 * no `--repo-url`, a `--cluster` the repo and the database have never seen without
 * `--new-cluster`: `newClusterRefusal`). `--dry-run` writes nothing, not even a new database file.
 */
export function register(program: Command): void {
  const cmd = program
    .command('reconcile')
    .description('one reconcile pass against the cluster and Git (--dry-run: print, write nothing)')
    .option('--once', 'run one pass and exit (the only mode; `gpuops run` loops)', true)
    .option('--dry-run', 'decide and print; write nothing anywhere')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--log-level <level>', 'pino log level (logs go to stderr)', 'warn')
    .option('--new-cluster', 'accept a --cluster the repo and the database have never seen (a new cluster)');
  addConnectionOptions(cmd);
  cmd.action(async (flags: ReconcileFlags) => {
    const settings = resolveSettings(flags);
    if (!settings.repoUrl) {
      throw new UsageError(
        '--repo-url: the GitOps repo remote is required (or GPUOPS_REPO_URL, or repoUrl in gpuops.yaml)',
      );
    }
    // A dry run creates no database file: without one it reads an empty in-memory database.
    if (settings.dryRun) settings.database = dryRunDatabase(settings.database);
    const log = createLogger(flags.logLevel, undefined, { secrets: settingsSecrets(settings) });
    // Ctrl-C says what it interrupted and releases the clone-cache lock (the clone itself takes it).
    const stopListening = onInterrupt('reconcile', 'the reconcile pass (clone, read, decide, write)');
    const reconciler = await createReconciler(settings, log, {
      onBenchmarkProgress: (p) =>
        process.stderr.write(
          `benchmark ${p.algorithm}: run ${p.run}/${p.runs} ${p.phase} ${Math.round(p.elapsedSeconds)}s ${p.message}\n`,
        ),
    }).catch((err: unknown) => {
      stopListening();
      throw err;
    });
    try {
      const refusal = newClusterRefusal(
        settings.cluster,
        await reconciler.knownClusters(),
        flags.newCluster === true,
      );
      if (refusal) throw new UsageError(refusal);
      const result = await reconciler.pass();
      if (flags.output === 'json') {
        const { plan, snapshot, writeBack, patches, standby = [] } = result;
        const report = planReport(plan, snapshot);
        process.stdout.write(`${JSON.stringify({ ...report, writeBack, patches, standby }, null, 2)}\n`);
      } else {
        process.stdout.write(formatPassResult(result, settings.dryRun));
      }
      process.exitCode = result.writeBack.some((w) => w.action === 'failed') ? 1 : 0;
    } finally {
      stopListening();
      await reconciler.close();
    }
  });
}
