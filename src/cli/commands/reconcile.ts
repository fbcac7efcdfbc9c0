import type { Command } from 'commander';

/** Registers `gpuops reconcile`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('reconcile')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops reconcile: not built yet\n');
      process.exitCode = 1;
    });
}
