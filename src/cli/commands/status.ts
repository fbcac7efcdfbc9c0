import { Option, type Command } from 'commander';
import { loadStatusView } from '../../status/load.js';
import { renderStatusHtml } from '../../status/html.js';
import { renderStatusText } from '../../status/text.js';
import { clusterOf, toStderr } from '../cluster-choice.js';
import { openExistingStore } from '../../compose/store.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';

/**
 * Registers `gpuops status [--cluster NAME] [--database URL] [--output html|text|json]`: the state
 * of the fleet from the database alone (no cluster, no Git) — the same page `gpuops run` serves
 * at `/` of its health port. `html` is one self-contained document (inline SVG, no script);
 * `json` the view model. Without `--cluster` it shows `default`, or the one cluster the database
 * holds; a cluster the database does not hold is a usage error naming those it does
 * (`cluster-choice.ts`). Exit 0; 1 when the database cannot be opened; 2 on usage errors.
 */
export function register(program: Command): void {
  const cmd = program
    .command('status')
    .description(
      'print the state of the fleet (pools, algorithms, pull requests, decisions) from the database',
    );
  addConnectionOptions(cmd, ['cluster', 'database'])
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'html', 'json']).default('text'),
    )
    .action(async (opts: Record<string, unknown> & { output: 'text' | 'html' | 'json' }) => {
      const settings = resolveSettings(opts);
      const store = await openExistingStore(settings.database);
      try {
        const note = opts.output === 'text' ? toStderr : null;
        const view = await loadStatusView(store, await clusterOf(store, settings, note), new Date());
        process.stdout.write(
          opts.output === 'json'
            ? `${JSON.stringify(view, null, 2)}\n`
            : opts.output === 'html'
              ? renderStatusHtml(view)
              : renderStatusText(view),
        );
      } finally {
        await store.close();
      }
    });
}
