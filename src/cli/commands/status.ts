import { Option, type Command } from 'commander';
import { loadStatusView, renderStatusHtml, renderStatusText } from '../../status/index.js';
import { clusterOf, toStderr } from '../cluster-choice.js';
import { readControllerStatus, openExistingStore } from '../../compose/index.js';
import type { StatusView } from '../../status/index.js';
import { addConnectionOptions, resolveSettings } from '../settings.js';

/**
 * Registers `gpuops status [--cluster NAME] [--database URL] [--controller-url URL] [--output
 * html|text|json]`: the state of the fleet from the database alone (no cluster, no Git) — the same
 * page `gpuops run` serves at `/` of its health port, without what only the running controller
 * knows (its cluster cache: the section says it is not known). With `--controller-url` it prints
 * the running controller's own view instead (`URL/status.json`: the database as the controller
 * reads it, plus its cluster cache, synced or not and why); the database flags are not used then. `html` is one self-contained document (inline SVG, no script);
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
    .option(
      '--controller-url <url>',
      "the running controller's status instead of the database's (http://HOST:PORT of gpuops run --health-address): adds its cluster cache, synced or not and why",
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'html', 'json']).default('text'),
    )
    .action(
      async (
        opts: Record<string, unknown> & { output: 'text' | 'html' | 'json'; controllerUrl?: string },
      ) => {
        const print = (view: StatusView) =>
          process.stdout.write(
            opts.output === 'json'
              ? `${JSON.stringify(view, null, 2)}\n`
              : opts.output === 'html'
                ? renderStatusHtml(view)
                : renderStatusText(view),
          );
        if (opts.controllerUrl) {
          print(await readControllerStatus(opts.controllerUrl));
          return;
        }
        const settings = resolveSettings(opts);
        const store = await openExistingStore(settings.database);
        try {
          const note = opts.output === 'text' ? toStderr : null;
          print(await loadStatusView(store, await clusterOf(store, settings, note), new Date()));
        } finally {
          await store.close();
        }
      },
    );
}
