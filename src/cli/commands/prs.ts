import type { Command } from 'commander';

/** Registers `gpuops prs`. Placeholder until its issue lands. */
export function register(program: Command): void {
  program
    .command('prs')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      process.stderr.write('gpuops prs: not built yet\n');
      process.exitCode = 1;
    });
}
