import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  createPrinter,
  formatSummary,
  realDemo,
  scaledExamples,
  EXAMPLES_DIR,
  runDemo,
} from '../../demo/index.js';

interface DemoFlags {
  dir?: string;
  speed: number;
  provider: 'git' | 'gitlab';
  real?: boolean;
  realSpeed: number;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return n;
}

/**
 * Registers `gpuops demo [--dir DIR] [--speed X] [--provider git|gitlab]`: the whole method on a
 * simulated cluster with a local GitOps repo and a SQLite database (see `src/demo/scenario.ts`),
 * no network; with `--provider gitlab` the changes go as merge requests to a local GitLab stand-in. Prints each
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
    .addOption(
      new Option(
        '--provider <provider>',
        'where the changes go: branches (git) or merge requests on a local GitLab stand-in',
      )
        .choices(['git', 'gitlab'])
        .default('git'),
    )
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
        `gpuops demo: pools → benchmarks → placement → scaling, ${flags.real ? 'on the real control plane with KWOK nodes' : 'on a simulated GPU cluster'}, with every
` +
          `change proposed to a local Git repo ${flags.provider === 'gitlab' ? 'as a merge request on a local GitLab stand-in' : 'as a pull request'}, merged,
` +
          `and ${flags.real ? 'applied by Flux' : 'synced as Argo CD would'}.
` +
          `Files: ${dir}\n`,
      );
      const examples = flags.real ? mkdtempSync(path.join(os.tmpdir(), 'gpuops-demo-examples-')) : null;
      try {
        if (examples) scaledExamples(EXAMPLES_DIR, examples, flags.realSpeed);
        const result = await runDemo({
          dir,
          speed: flags.speed,
          provider: flags.provider,
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
