/**
 * Credentials inside a remote URL (`https://user:token@host/org/repo.git`). Pure: git must never
 * see them in its argv or write them to `.git/config`, so they are split off here and sent as an
 * HTTP header through git's environment instead (see `WorkingCopy`).
 */

/** A remote URL without its credentials, and the credentials it carried. */
export interface SplitRemoteUrl {
  /** The URL git is given: userinfo removed for http(s); any other URL unchanged. */
  url: string;
  /** The userinfo of an http(s) URL, percent-decoded; null when there was none. */
  credentials: { username: string; password: string } | null;
}

/**
 * Splits the userinfo off an `http://` or `https://` URL. An ssh URL (`ssh://git@host/…`,
 * `git@host:…`) keeps its user: there it names the account, it is not a secret. A URL that does
 * not parse is returned unchanged.
 */
export function splitRemoteUrl(repoUrl: string): SplitRemoteUrl {
  if (!/^https?:\/\//i.test(repoUrl)) return { url: repoUrl, credentials: null };
  let u: URL;
  try {
    u = new URL(repoUrl);
  } catch {
    return { url: repoUrl, credentials: null };
  }
  if (u.username === '' && u.password === '') return { url: repoUrl, credentials: null };
  const credentials = {
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
  u.username = '';
  u.password = '';
  return { url: u.toString(), credentials };
}
