import type { Command } from 'commander';

/** Registers `gpuops plan`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('plan')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops plan: not built yet\n');
      process.exitCode = 1;
    });
}
