import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { createPrinter, formatSummary } from '../../demo/print.js';
import { realDemo, scaledExamples } from '../../demo/real-backend.js';
import { EXAMPLES_DIR, runDemo } from '../../demo/scenario.js';

interface DemoFlags {
  dir?: string;
  speed: number;
  real?: boolean;
  realSpeed: number;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return n;
}

/**
 * Registers `gpuops demo [--dir DIR] [--speed X]`: the whole method on a simulated cluster with a
 * local GitOps repo and a SQLite database (see `src/demo/scenario.ts`), no network. Prints each
 * step as it happens, then a summary and where the repo and the database are. Exit 0 when every
 * step reached its goal, 1 otherwise, 2 on usage errors.
 */
export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'run the whole method on a simulated cluster with a local GitOps repo (no network, < 1 minute)',
    )
    .option('--dir <dir>', 'empty folder for the repo, the database and the log (default: a new temp folder)')
    .option('--speed <x>', 'simulated seconds per real second between waits', positiveNumber, 5)
    .option(
      '--real',
      'run on the real control plane (kube-apiserver, controllers, KWOK, Flux, Prometheus) that scripts/k8s/build.sh built',
    )
    .option(
      '--real-speed <x>',
      'with --real: how many times faster than real time the story runs',
      positiveNumber,
      30,
    )
    .action(async (flags: DemoFlags) => {
      const dir = flags.dir ? path.resolve(flags.dir) : mkdtempSync(path.join(os.tmpdir(), 'gpuops-demo-'));
      const out = process.stdout;
      out.write(
        (flags.real
          ? 'gpuops demo: pools → benchmarks → placement → scaling, on the real control plane with KWOK\n' +
            'nodes, with every change proposed to a local Git repo as a pull request, merged, and applied by Flux.\n'
          : 'gpuops demo: pools → benchmarks → placement → scaling, on a simulated GPU cluster, with every\n' +
            'change proposed to a local Git repo as a pull request, merged, and synced as Argo CD would.\n') +
          `Files: ${dir}\n`,
      );
      const examples = flags.real ? mkdtempSync(path.join(os.tmpdir(), 'gpuops-demo-examples-')) : null;
      try {
        if (examples) scaledExamples(EXAMPLES_DIR, examples, flags.realSpeed);
        const result = await runDemo({
          dir,
          speed: flags.speed,
          onEvent: createPrinter(out),
          ...(examples
            ? {
                examples,
                real: realDemo(flags.realSpeed, (step) => out.write(`starting ${step}\n`)),
              }
            : {}),
        });
        out.write(formatSummary(result));
      } catch (err) {
        process.stderr.write(`\ngpuops demo: ${err instanceof Error ? err.message : String(err)}\n`);
        process.stderr.write(`The repo, database and log are in ${dir}\n`);
        process.exitCode = 1;
      } finally {
        if (examples) rmSync(examples, { recursive: true, force: true });
      }
    });
}
