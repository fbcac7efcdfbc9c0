import type { Command } from 'commander';

/** Registers `gpuops benchmark`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('benchmark')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops benchmark: not built yet\n');
      process.exitCode = 1;
    });
}
