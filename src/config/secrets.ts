/**
 * The secret values of a set of connection settings, for the logger (pure).
 */
import { urlSecrets } from '../util/index.js';
import type { Settings } from './settings.js';

/**
 * Every credential the settings carry, as literal strings a logger replaces wherever they
 * appear (also inside error messages and stacks, which path redaction cannot reach): the GitHub,
 * GitLab and Gitea tokens and the credentials of every URL setting — `repoUrl`, `database` (as
 * `pg` reads it, `?password=` included), `prometheusUrl`, each `dcgmUrl`, `githubApiUrl`,
 * `gitlabUrl`, `giteaUrl` — found by
 * {@link urlSecrets}.
 * @param s resolved settings
 * @returns distinct non-empty strings (the logger drops those shorter than 4 characters)
 */
export function settingsSecrets(
  s: Pick<Settings, 'githubToken' | 'repoUrl' | 'database' | 'prometheusUrl' | 'dcgmUrl' | 'githubApiUrl'> &
    Partial<Pick<Settings, 'gitlabToken' | 'giteaToken' | 'gitlabUrl' | 'giteaUrl'>>,
): string[] {
  const urls = [s.repoUrl, s.database, s.prometheusUrl, s.githubApiUrl, s.gitlabUrl, s.giteaUrl];
  const all = [
    s.githubToken,
    s.gitlabToken,
    s.giteaToken,
    ...[...urls, ...(s.dcgmUrl ?? [])].flatMap(urlSecrets),
  ];
  return [...new Set(all.filter((x): x is string => typeof x === 'string' && x.length > 0))];
}
