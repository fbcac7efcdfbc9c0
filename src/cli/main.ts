import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { commandsFor, type RegisterCommand } from './commands/index.js';
import { UsageError } from './settings.js';

/** The `version` of package.json (two folders up from `src/cli/` and from `dist/cli/`). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Builds the `gpuops` program. Exit codes follow docs/design.md ("Command-line contract"): 0
 * success, 1 failure (or invalid specs for `validate`), 2 usage errors, 3 a `plan --fail-on-refused`
 * that refused a spec and planned the others.
 */
export function buildProgram(commands: RegisterCommand[]): Command {
  const program = new Command('gpuops')
    .description(
      'GitOps controller that sorts GPU nodes into pools, benchmarks, places and scales algorithms',
    )
    .version(packageVersion())
    .showHelpAfterError()
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI with `argv` (as `process.argv`); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(await commandsFor(argv));
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      if (err.code === 'commander.help') return 0;
      return 2;
    }
    process.stderr.write(`gpuops: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

const isEntry =
  process.argv[1] !== undefined && /(?:bin\/gpuops(?:\.js)?|cli\/main\.[jt]s)$/.test(process.argv[1]);
if (isEntry) {
  process.exitCode = await main(process.argv);
}
