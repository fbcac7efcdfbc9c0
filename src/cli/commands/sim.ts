import type { Command } from 'commander';

/** Registers `gpuops sim`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('sim')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops sim: not built yet\n');
      process.exitCode = 1;
    });
}
