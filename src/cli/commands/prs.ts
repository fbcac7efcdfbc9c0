import { InvalidArgumentError, Option, type Command } from 'commander';
import type { PullRequestCycle, PullRequestRecord } from '../../store/index.js';
import { escapeControl, escapeControlKeepLines } from '../../util/index.js';
import { pullRequestRef } from '../../change-sets/index.js';
import { clusterOf, toStderr } from '../cluster-choice.js';
import { openExistingStore } from '../../compose/index.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';

/** A fixed-width table; every cell is one line ({@link escapeControl}: a title from Git stays in its row). */
function table(given: string[][]): string {
  const rows = given.map((r) => r.map(escapeControl));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') +
    '\n'
  );
}

/** The LINK column (the host's web address of each pull request) when any row has one. */
function links(rows: readonly { url: string | null }[]): {
  head: string[];
  cell: (url: string | null) => string[];
} {
  const any = rows.some((r) => r.url);
  return { head: any ? ['LINK'] : [], cell: (url) => (any ? [url ?? '—'] : []) };
}

/**
 * Formats recorded pull requests as a fixed-width table: state, kind, subject, PR (`#7`, GitLab's
 * `!7`, or `(branch)`), branch, updated (UTC), the link when the host gave one, title. Pure;
 * exported for tests.
 */
export function formatPullRequests(prs: readonly PullRequestRecord[]): string {
  if (prs.length === 0) return 'No pull requests recorded.\n';
  const link = links(prs);
  return table([
    ['STATE', 'KIND', 'SUBJECT', 'PR', 'BRANCH', 'UPDATED (UTC)', ...link.head, 'TITLE'],
    ...prs.map((p) => [
      p.state,
      p.kind,
      p.subject,
      pullRequestRef(p),
      p.branch,
      p.updatedAt,
      ...link.cell(p.url),
      p.title,
    ]),
  ]);
}

/**
 * Formats every pull request cycle (`gpuops prs --all`): id (for `prs show`), outcome, kind,
 * subject, PR, opened and closed (UTC), the link when the host gave one, title. Pure.
 */
export function formatPullRequestHistory(cycles: readonly PullRequestCycle[]): string {
  if (cycles.length === 0) return 'No pull requests recorded.\n';
  const link = links(cycles);
  return table([
    ['ID', 'STATE', 'KIND', 'SUBJECT', 'PR', 'OPENED (UTC)', 'CLOSED (UTC)', ...link.head, 'TITLE'],
    ...cycles.map((c) => [
      String(c.id),
      c.state,
      c.kind,
      c.subject,
      pullRequestRef(c),
      c.openedAt,
      c.closedAt ?? '—',
      ...link.cell(c.url),
      c.title,
    ]),
  ]);
}

/**
 * Formats one cycle with its whole body (`gpuops prs show ID`); control characters are escaped,
 * the body keeps its lines ({@link escapeControlKeepLines}). Pure.
 */
export function formatPullRequestCycle(c: PullRequestCycle): string {
  const head = [
    `Pull request ${c.id}: ${c.title}`,
    `state:   ${c.state}`,
    `kind:    ${c.kind} (${c.subject})`,
    `branch:  ${c.branch}`,
    ...(c.number !== null ? [`number:  ${pullRequestRef(c)}`] : []),
    ...(c.url ? [`url:     ${c.url}`] : []),
    `opened:  ${c.openedAt} (UTC)`,
    `closed:  ${c.closedAt ? `${c.closedAt} (UTC)` : '—'}`,
    `updated: ${c.updatedAt} (UTC)`,
  ];
  const body = escapeControlKeepLines(c.body);
  return `${head.map(escapeControl).join('\n')}\n\n${body.endsWith('\n') ? body : `${body}\n`}`;
}

function cycleId(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(
      `ID must be a pull request id from "gpuops prs --all", got ${JSON.stringify(value)}`,
    );
  return n;
}

type Output = 'text' | 'json';

/**
 * Registers `gpuops prs [--all] [--cluster NAME] [--database URL] [--output text|json]` and
 * `gpuops prs show ID`. Without `--all`: one row per branch, its latest state (what gpuops works
 * with). With `--all`: every pull request cycle (each open → merged/closed), newest first, with
 * its id. `show ID` prints one cycle with its whole body. Times are UTC. The cluster is chosen as
 * `status` chooses it (`cluster-choice.ts`). Exit 0; 1 when the database cannot be opened or the
 * id is unknown; 2 on usage errors (a cluster the database does not hold).
 */
export function register(program: Command): void {
  const output = () =>
    new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text');
  const cmd = program
    .command('prs')
    .description('list the pull requests and branches gpuops recorded (--all: every one, with history)');
  addConnectionOptions(cmd, ['cluster', 'database'])
    .option('--all', 'every pull request gpuops opened, merged and closed ones included, newest first')
    .addOption(output())
    .action(async (opts: Record<string, unknown> & { output: Output; all?: boolean }) => {
      const settings = resolveSettings(opts);
      const store = await openExistingStore(settings.database);
      try {
        const cluster = await clusterOf(store, settings, opts.output === 'text' ? toStderr : null);
        if (opts.all) {
          const cycles = await store.pullRequestHistory(cluster);
          process.stdout.write(
            opts.output === 'json'
              ? `${JSON.stringify(cycles, null, 2)}\n`
              : formatPullRequestHistory(cycles),
          );
          return;
        }
        const prs = await store.pullRequests(cluster);
        process.stdout.write(
          opts.output === 'json' ? `${JSON.stringify(prs, null, 2)}\n` : formatPullRequests(prs),
        );
      } finally {
        await store.close();
      }
    });
  const show = cmd
    .command('show')
    .description('print one pull request with its whole body (ID from "gpuops prs --all")')
    .argument('<id>', 'pull request id', cycleId);
  // --database and --output are the parent's: `gpuops prs show 3 --database X -o json`.
  show.action(async (id: number, _opts: unknown, self: Command) => {
    // `gpuops prs show 3 --database X`: the parent `prs` may have parsed --database/--output.
    const opts = self.optsWithGlobals<Record<string, unknown> & { output: Output }>();
    const settings = resolveSettings(opts);
    const store = await openExistingStore(settings.database);
    try {
      const cycle = await store.pullRequestCycle(id);
      if (!cycle) throw new Error(`no pull request with id ${id} (see "gpuops prs --all")`);
      process.stdout.write(
        opts.output === 'json' ? `${JSON.stringify(cycle, null, 2)}\n` : formatPullRequestCycle(cycle),
      );
    } finally {
      await store.close();
    }
  });
}
