import type { Command } from 'commander';
import { createLogger } from '../../controller/log.js';
import type { PassResult } from '../../controller/reconcile.js';
import { createReconciler } from '../compose.js';
import { formatPlanTable } from '../plan-build.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';

interface ReconcileFlags {
  once?: boolean;
  dryRun?: boolean;
  output: string;
  logLevel: string;
  [key: string]: unknown;
}

/** The human summary of one pass: the plan tables, then what was written (or would be). */
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
  }
  for (const p of r.patches) out.push(`  patch ${p}`);
  return `${out.join('\n')}\n`;
}

/**
 * Registers `gpuops reconcile --once [--dry-run]`: one level-triggered pass against the live
 * cluster and Git. Exit 0 when the pass ran (spec errors are reported, not fatal), 1 when it
 * failed (cluster or repo unreachable, or any write-back failed).
 */
export function register(program: Command): void {
  const cmd = program
    .command('reconcile')
    .description('one reconcile pass against the cluster and Git (--dry-run: print, write nothing)')
    .option('--once', 'run one pass and exit (the only mode; `gpuops run` loops)', true)
    .option('--dry-run', 'decide and print; write nothing anywhere')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--log-level <level>', 'pino log level (logs go to stderr)', 'warn');
  addConnectionOptions(cmd);
  cmd.action(async (flags: ReconcileFlags) => {
    const settings = resolveSettings(flags);
    const log = createLogger(flags.logLevel);
    const reconciler = await createReconciler(settings, log, {
      onBenchmarkProgress: (p) =>
        process.stderr.write(
          `benchmark ${p.algorithm}: run ${p.run}/${p.runs} ${p.phase} ${Math.round(p.elapsedSeconds)}s ${p.message}\n`,
        ),
    });
    try {
      const result = await reconciler.pass();
      if (flags.output === 'json') {
        const { plan, writeBack, patches } = result;
        process.stdout.write(`${JSON.stringify({ ...plan, writeBack, patches }, null, 2)}\n`);
      } else {
        process.stdout.write(formatPassResult(result, settings.dryRun));
      }
      process.exitCode = result.writeBack.some((w) => w.action === 'failed') ? 1 : 0;
    } finally {
      await reconciler.close();
    }
  });
}
