/**
 * The running controller's status, read over HTTP from its health port (`gpuops run` serves its
 * page's view model at `/status.json`): what `gpuops status --controller-url` prints. It adds what
 * the database cannot hold — the controller's watch-driven cluster cache, synced or not and why.
 */
import type { StatusView } from '../status/index.js';

/** How long to wait for the controller's answer (ms). */
const TIMEOUT_MS = 10_000;

/**
 * The view `url`'s controller serves (`URL/status.json`; a URL that already names it is used as
 * given).
 * @throws Error `--controller-url URL: …` naming why: unreachable, no answer in 10 s, an HTTP
 *   status (404: a controller without a status page, e.g. `run --dry-run` without a database), or
 *   an answer that is not a status view
 */
export async function readControllerStatus(url: string): Promise<StatusView> {
  const fail = (why: string): never => {
    throw new Error(`--controller-url ${url}: ${why}`);
  };
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return fail('not a URL (http://HOST:PORT of gpuops run --health-address)');
  }
  if (!target.pathname.endsWith('/status.json'))
    target.pathname = `${target.pathname.replace(/\/+$/, '')}/status.json`;
  let res: Response;
  try {
    res = await fetch(target, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return fail(
      e.name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.message),
    );
  }
  if (!res.ok)
    return fail(
      `HTTP ${res.status} from ${target.href}${res.status === 404 ? ' (a controller without a status page: no database)' : ''}`,
    );
  let view: unknown;
  try {
    view = await res.json();
  } catch {
    return fail(`${target.href} did not answer JSON`);
  }
  const v = view as Partial<StatusView> | null;
  if (!v || typeof v.cluster !== 'string' || typeof v.health?.line !== 'string' || !('cache' in v))
    return fail(`${target.href} is not a gpuops status view`);
  return v as StatusView;
}
