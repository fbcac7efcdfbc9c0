/**
 * The connection flags of the `gpuops` commands. The settings themselves live in
 * `config/settings.ts` (re-exported here for the commands).
 */
import type { Command } from 'commander';
import { CONNECTION_OPTIONS, type Settings } from '../config/index.js';

export { resolveSettings, UsageError, type GitOpsSettings, type Settings } from '../config/index.js';

/** Adds the connection flags to a command. `--dry-run` is added by commands that write. */
export function addConnectionOptions(cmd: Command, only?: (keyof Settings)[]): Command {
  for (const o of CONNECTION_OPTIONS) {
    if (only && !only.includes(o.key)) continue;
    const arg = o.variadic ? `<url...>` : `<value>`;
    cmd.option(`--${o.flag} ${arg}`, `${o.description}${o.default ? ` (default: ${o.default})` : ''}`);
  }
  return cmd;
}
