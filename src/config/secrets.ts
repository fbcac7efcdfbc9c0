/**
 * The secret values of a set of connection settings, for the logger (pure).
 */
import { urlSecrets } from '../util/url-secrets.js';
import type { Settings } from './settings.js';

/**
 * Every credential the settings carry, as literal strings a logger replaces wherever they
 * appear (also inside error messages and stacks, which path redaction cannot reach): the GitHub
 * token and the credentials of every URL setting — `repoUrl`, `database` (as `pg` reads it,
 * `?password=` included), `prometheusUrl`, each `dcgmUrl`, `githubApiUrl` — found by
 * {@link urlSecrets}.
 * @param s resolved settings
 * @returns distinct non-empty strings (the logger drops those shorter than 4 characters)
 */
export function settingsSecrets(
  s: Pick<Settings, 'githubToken' | 'repoUrl' | 'database' | 'prometheusUrl' | 'dcgmUrl' | 'githubApiUrl'>,
): string[] {
  const all = [
    s.githubToken,
    ...[s.repoUrl, s.database, s.prometheusUrl, s.githubApiUrl, ...(s.dcgmUrl ?? [])].flatMap(urlSecrets),
  ];
  return [...new Set(all.filter((x): x is string => typeof x === 'string' && x.length > 0))];
}
