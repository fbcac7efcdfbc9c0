import type { Command } from 'commander';

/** Registers `gpuops run`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('run')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops run: not built yet\n');
      process.exitCode = 1;
    });
}
