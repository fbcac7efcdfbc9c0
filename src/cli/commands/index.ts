import type { Command } from 'commander';

/** A command module adds one subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

/**
 * Every subcommand, in the order `gpuops --help` lists them, loaded on demand: `gpuops validate`
 * in a GitOps repo's CI never pays for loading the Kubernetes client, octokit or the databases.
 */
export const COMMANDS: Record<string, () => Promise<{ register: RegisterCommand }>> = {
  demo: () => import('./demo.js'),
  validate: () => import('./validate.js'),
  plan: () => import('./plan.js'),
  reconcile: () => import('./reconcile.js'),
  run: () => import('./run.js'),
  snapshot: () => import('./snapshot.js'),
  benchmark: () => import('./benchmark.js'),
  prs: () => import('./prs.js'),
  status: () => import('./status.js'),
  migrate: () => import('./migrate.js'),
  sim: () => import('./sim.js'),
  cluster: () => import('./cluster.js'),
  replay: () => import('./replay.js'),
};

/**
 * The register functions of the commands `argv` needs: only the named subcommand when the first
 * argument names one, none for a lone `--version`, else all of them (for `--help`, `help` and usage
 * errors).
 * @param argv as `process.argv`
 */
export async function commandsFor(argv: readonly string[]): Promise<RegisterCommand[]> {
  const name = argv[2];
  // `gpuops --version` needs no command: it answers before loading any (a start in ~0.1 s).
  if (argv.length === 3 && (name === '--version' || name === '-V')) return [];
  const names = name !== undefined && name in COMMANDS ? [name] : Object.keys(COMMANDS);
  return (await Promise.all(names.map((n) => COMMANDS[n]!()))).map((m) => m.register);
}
