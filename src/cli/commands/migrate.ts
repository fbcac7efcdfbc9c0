import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { MIGRATIONS, connectionError } from '../../store/index.js';
import { openDatabase, sqliteFile } from '../../compose/index.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';

/** What `gpuops migrate` did: the migrations applied now (id order) and the schema version after. */
export interface MigrateReport {
  /** `true` when the SQLite file did not exist and was created. */
  created: boolean;
  applied: { id: number; name: string }[];
  /** The highest migration id recorded after the run. */
  version: number;
}

/** The line a person reads: `applied schema migrations 4 (node activity), 5 (…); now at 5`. */
export function formatMigrateReport(r: MigrateReport): string {
  const head = r.created ? 'created the database; ' : '';
  if (r.applied.length === 0) return `${head}the schema is at migration ${r.version}: nothing to apply\n`;
  const list = r.applied.map((m) => `${m.id} (${m.name})`).join(', ');
  return `${head}applied schema migration${r.applied.length === 1 ? '' : 's'} ${list}; now at ${r.version}\n`;
}

/**
 * Registers `gpuops migrate [--database URL] [--output text|json]`: applies the database's pending
 * schema migrations and says which. The commands that only read (`status`, `prs`, `plan`,
 * `--dry-run`) never migrate and point here; `run`, `reconcile`, `snapshot` and `benchmark`
 * migrate on start as before. A missing SQLite file is created. Exit 0; 1 when the database cannot
 * be reached or was migrated by a newer gpuops; 2 on usage errors.
 */
export function register(program: Command): void {
  const cmd = program
    .command('migrate')
    .description('apply pending schema migrations to the database (read-only commands never do)')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'),
    );
  addConnectionOptions(cmd, ['database']).action(
    async (opts: Record<string, unknown> & { output: 'text' | 'json' }) => {
      const settings = resolveSettings(opts);
      const file = sqliteFile(settings.database);
      const created = file !== null && file !== ':memory:' && !existsSync(file);
      const store = await openDatabase(settings.database, { migrate: false });
      let report: MigrateReport;
      try {
        let before: Set<number>;
        let after: number[];
        try {
          before = new Set(await store.appliedMigrations());
          await store.migrate();
          after = await store.appliedMigrations();
        } catch (err) {
          throw connectionError(settings.database, err, '--database', 'migrate');
        }
        report = {
          created,
          applied: MIGRATIONS.filter((m) => !before.has(m.id) && after.includes(m.id)).map((m) => ({
            id: m.id,
            name: m.name,
          })),
          version: Math.max(0, ...after),
        };
      } finally {
        await store.close();
      }
      process.stdout.write(
        opts.output === 'json' ? `${JSON.stringify(report)}\n` : formatMigrateReport(report),
      );
      process.exitCode = 0;
    },
  );
}
