import type { Command } from 'commander';

/** Registers `gpuops snapshot`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('snapshot')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops snapshot: not built yet\n');
      process.exitCode = 1;
    });
}
