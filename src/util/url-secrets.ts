/**
 * Credentials in URLs, found the way the URL's consumer finds them (pure).
 *
 * - Every URL setting but the database is read by the WHATWG URL parser (Node's `fetch`, octokit,
 *   git's own parser agrees on these cases): the userinfo is everything before the **last** `@` of
 *   the authority (`https://u:p@ss@word@host` has password `p@ss@word`), percent-decoded.
 * - `postgres://` database URLs are read by `pg` through pg-connection-string, which also parses
 *   with WHATWG URL (`new URL(s, 'postgres://base')`) and lets a `password=` query parameter
 *   override the userinfo's password (`postgres://u@host/db?password=…`); libpq reads
 *   `password=` and `sslpassword=` keywords the same way.
 * - A password with a raw `/` (`postgres://u:pa/ss@host/db`) ends the authority for WHATWG,
 *   so no parser sees it as a password, yet it is one: in free text everything between `://`
 *   and the last `@` of the URL is taken as credentials. That errs towards redacting a path
 *   that holds an `@` (`https://host/@scope` → `https://***@scope`): a log loses a host name, never a password.
 */

/** Query parameter and keyword names whose value is a credential (pg, libpq, OAuth, S3 presigning). */
const SECRET_PARAMS =
  'password|passwd|pwd|sslpassword|token|access_token|refresh_token|client_secret|secret|api_key|apikey|x-amz-signature|x-amz-credential|sig';

/** `scheme://` then the URL up to whitespace, a quote or an angle bracket (how URLs sit in logs and JSON). */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s"'<>`]*)/gi;

/** `name=value` of a secret parameter, after `?`, `&`, `;`, whitespace, a quote or the start. */
const SECRET_PARAM_IN_TEXT = new RegExp(
  `((?:^|[?&;\\s"'(,])(?:${SECRET_PARAMS})=)('(?:[^'\\\\]|\\\\.)*'|[^&\\s;"'#,)]*)`,
  'gi',
);

/**
 * Redacts credentials in free text: the userinfo of every `scheme://userinfo@…` (up to the last
 * `@` of the URL) becomes `***`, and the value of every secret parameter (`password=`,
 * `sslpassword=`, `token=`, `access_token=`, … in a query string or a libpq keyword string)
 * becomes `***`. Text without credentials comes back unchanged.
 * @param text a log line, an error message, a URL
 * @returns the text with `scheme://***@host…` and `password=***`
 */
export function redactUrls(text: string): string {
  return text
    .replace(URL_IN_TEXT, (_m, scheme: string, rest: string) => {
      const at = rest.lastIndexOf('@');
      return at < 0 ? scheme + rest : `${scheme}***${rest.slice(at)}`;
    })
    .replace(SECRET_PARAM_IN_TEXT, '$1***');
}

/**
 * The credentials a URL setting carries, as literal strings for a logger's secret list: the
 * password (as written and percent-decoded), a username that stands alone and is long enough to
 * be a token (`https://ghp_…@github.com`, 16 characters or more), and the values of secret query
 * parameters. Parsed as WHATWG URL (see the module doc); a URL that parser refuses is read by the
 * last-`@` rule, so a password with a raw `/` is still found.
 * A libpq keyword string (`host=db password=…`) yields its secret keywords' values.
 * @param url a URL setting (`--repo-url`, `--database`, `--prometheus-url`, …); a plain path yields nothing
 * @returns distinct non-empty strings, possibly none
 */
export function urlSecrets(url: string | undefined): string[] {
  if (!url) return [];
  const out = new Set<string>();
  const names = new RegExp(`^(?:${SECRET_PARAMS})$`, 'i');
  const add = (s: string | null | undefined) => {
    if (!s) return;
    out.add(s);
    try {
      out.add(decodeURIComponent(s));
    } catch {
      // not percent-encoded: the raw form is enough
    }
  };
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^\s]*)$/i.exec(url.trim());
  if (m) {
    const rest = m[1]!;
    const at = rest.lastIndexOf('@');
    if (at >= 0) {
      const info = rest.slice(0, at);
      const colon = info.indexOf(':');
      if (colon >= 0) add(info.slice(colon + 1));
      else if (info.length >= 16) add(info);
    }
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url.trim());
  } catch {
    parsed = undefined;
  }
  if (parsed) {
    add(parsed.password);
    if (!parsed.password && parsed.username.length >= 16) add(parsed.username);
    for (const [k, v] of parsed.searchParams) if (names.test(k)) add(v);
  } else if (!m) {
    // A libpq keyword string: `host=db password='p w' dbname=x`.
    for (const kv of url.matchAll(/([a-z_-]+)\s*=\s*('(?:[^'\\]|\\.)*'|\S*)/gi))
      if (names.test(kv[1]!)) add(kv[2]!.replace(/^'(.*)'$/s, '$1'));
  }
  return [...out].filter((s) => s.length > 0);
}
