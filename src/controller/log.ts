import { pino, type Logger, type DestinationStream } from 'pino';
import { redactUrls } from '../util/index.js';

/**
 * Paths redacted from every log line: tokens, passwords, auth headers and connection URLs that
 * may carry credentials. pino's `redact` replaces the value with `[Redacted]`.
 */
export const REDACT_PATHS = [
  'token',
  'githubToken',
  'gitlabToken',
  'giteaToken',
  'password',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.token',
  '*.githubToken',
  '*.gitlabToken',
  '*.giteaToken',
  '*.password',
  '*.authorization',
  'settings.githubToken',
  'settings.gitlabToken',
  'settings.giteaToken',
];

/**
 * Removes credentials from URLs inside `text`: the userinfo up to the URL's last `@`
 * (`https://x:p@ss@host` → `https://***@host`) and secret query parameters (`?password=***`);
 * see {@link redactUrls}.
 */
export function redactUrl(text: string): string {
  return redactUrls(text);
}

/** Extra options of {@link createLogger}. */
export interface LoggerOptions {
  /**
   * Secret values (e.g. the GitHub token) replaced by `[Redacted]` wherever they appear in a
   * line — also inside error messages and stacks, which path-based redaction cannot reach.
   * Empty strings are ignored.
   */
  secrets?: (string | undefined)[];
}

/** Replaces every secret and every `user:password@` of a URL in one serialised log line. */
export function scrubLine(line: string, secrets: readonly string[]): string {
  let out = redactUrl(line);
  for (const s of secrets) out = out.split(s).join('[Redacted]');
  return out;
}

/**
 * Creates the structured JSON logger (pino): one object per line, metadata first, a static
 * message (`log.warn({ err, node }, 'could not label Node')`), secrets redacted: the paths of
 * {@link REDACT_PATHS}, credentials in URLs anywhere in the line, and the literal values of
 * `options.secrets` (so a token echoed inside an error message never reaches the log).
 * @param level pino level, e.g. `info`, `debug`, `silent`
 * @param destination where lines go; standard error by default, so command output stays clean
 */
export function createLogger(
  level = 'info',
  destination?: DestinationStream,
  options: LoggerOptions = {},
): Logger {
  // Short values would redact ordinary words; a real token is long.
  const secrets = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 4);
  return pino(
    {
      name: 'gpuops',
      level,
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: { streamWrite: (line: string) => scrubLine(line, secrets) },
    },
    destination ?? pino.destination(2),
  );
}
