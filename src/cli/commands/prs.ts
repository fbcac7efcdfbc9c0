import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { openStore } from '../../store/index.js';
import type { PullRequestRecord } from '../../store/types.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';

/**
 * Formats recorded pull requests as a fixed-width table: state, kind, subject, PR (number or
 * `branch`), branch, title. Pure; exported for tests.
 */
export function formatPullRequests(prs: readonly PullRequestRecord[]): string {
  if (prs.length === 0) return 'No pull requests recorded.\n';
  const rows = [
    ['STATE', 'KIND', 'SUBJECT', 'PR', 'BRANCH', 'UPDATED', 'TITLE'],
    ...prs.map((p) => [
      p.state,
      p.kind,
      p.subject,
      p.number === null ? '(branch)' : `#${p.number}`,
      p.branch,
      p.updatedAt,
      p.title,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') +
    '\n'
  );
}

/**
 * Registers `gpuops prs [--cluster NAME] [--database URL] [--output text|json]`: lists the pull
 * requests (with the plain git provider: the branches) gpuops recorded for a cluster, newest
 * first. `json` prints the Store's `PullRequestRecord[]`. Exit 0, 1 when the database cannot be
 * opened, 2 on usage errors.
 */
export function register(program: Command): void {
  const cmd = program.command('prs').description('list the pull requests and branches gpuops recorded');
  addConnectionOptions(cmd, ['cluster', 'database'])
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (opts: Record<string, unknown> & { output: 'text' | 'json' }) => {
      const settings = resolveSettings(opts);
      const file = settings.database.startsWith('sqlite:') ? settings.database.slice('sqlite:'.length) : null;
      if (file !== null && file !== ':memory:' && !existsSync(file)) {
        // Listing never creates a database: a mistyped path is an error, not an empty answer.
        throw new Error(`--database: no database at ${file} (gpuops writes it on its first reconcile)`);
      }
      const store = await openStore(settings.database);
      try {
        const prs = await store.pullRequests(settings.cluster);
        process.stdout.write(
          opts.output === 'json' ? `${JSON.stringify(prs, null, 2)}\n` : formatPullRequests(prs),
        );
      } finally {
        await store.close();
      }
    });
}
