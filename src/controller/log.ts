import { pino, type Logger, type DestinationStream } from 'pino';

/**
 * Paths redacted from every log line: tokens, passwords, auth headers and connection URLs that
 * may carry credentials. pino's `redact` replaces the value with `[Redacted]`.
 */
export const REDACT_PATHS = [
  'token',
  'githubToken',
  'password',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.token',
  '*.githubToken',
  '*.password',
  '*.authorization',
  'settings.githubToken',
];

/** Matches `scheme://user:password@` in free text, for {@link redactUrl}. */
const CREDENTIALS_IN_URL = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s:]+(?::[^/@\s]*)?@/gi;

/** Removes `user:password@` from URLs inside `text` (`https://x:tok@host` → `https://***@host`). */
export function redactUrl(text: string): string {
  return text.replace(CREDENTIALS_IN_URL, '$1***@');
}

/**
 * Creates the structured JSON logger (pino): one object per line, metadata first, a static
 * message (`log.warn({ err, node }, 'could not label Node')`), secrets redacted.
 * @param level pino level, e.g. `info`, `debug`, `silent`
 * @param destination where lines go; standard error by default, so command output stays clean
 */
export function createLogger(level = 'info', destination?: DestinationStream): Logger {
  return pino(
    {
      name: 'gpuops',
      level,
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination(2),
  );
}
