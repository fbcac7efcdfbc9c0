import type { Command } from 'commander';

/** Registers `gpuops validate`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('validate')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops validate: not built yet\n');
      process.exitCode = 1;
    });
}
