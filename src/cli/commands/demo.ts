import type { Command } from 'commander';

/** Registers `gpuops demo`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('demo')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops demo: not built yet\n');
      process.exitCode = 1;
    });
}
