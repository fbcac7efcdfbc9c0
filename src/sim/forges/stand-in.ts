/**
 * What the GitLab and Gitea/Forgejo stand-ins share: a node:http server on 127.0.0.1 that records
 * every request, checks its token, answers scripted replies first (a rate limit, a 403, another
 * writer acting between two calls) and otherwise the host's own routes over a small model of pull
 * requests, comments and labels. A request no route knows is recorded as a problem and answered
 * 400; `verify()` throws on a problem and on a scripted reply never used (as Renovate's HTTP mock
 * does). The demo runs them too (`gpuops demo --provider gitlab`), so they live in `src/`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A pull (merge) request as the stand-ins keep it. */
export interface StandInPull {
  number: number;
  state: 'open' | 'closed' | 'merged';
  title: string;
  body: string;
  head: string;
  base: string;
  labels: string[];
  /** Username of its author. */
  author: string;
  /** Whether its head branch is in a fork (another project / repository). */
  fork: boolean;
  /** Monotonic counter standing in for `updated_at`. */
  updated: number;
}

/** A comment (GitLab: a note) on a pull request. */
export interface StandInComment {
  id: number;
  body: string;
  author: string;
  /** GitLab's system notes ("added 1 commit"): written by GitLab, never by a person or gpuops. */
  system?: boolean;
}

/** One recorded request. */
export interface StandInRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

/** A scripted answer to the next request matching `method` and `path` (exact pathname). */
export interface StandInScript {
  method: string;
  path: string;
  /** Runs first (e.g. to change state, as a concurrent writer would). */
  before?: () => void;
  /** When set, answers with this status (and headers, body) instead of the route. */
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** How a host treats labels: added, refused with 403, or (GitLab) silently left off. */
export type LabelMode = 'allowed' | 'forbidden' | 'left-off';

/** The request a route answers. */
export interface Exchange {
  method: string;
  /** Path below the API root (`/projects/1/merge_requests`). */
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  /** The user the token belongs to. */
  user: string;
  reply(status: number, data: unknown, headers?: Record<string, string>): void;
  /** Records a malformed or unknown request and answers 400. */
  problem(message: string): void;
}

/** The shared server and model; subclasses add the host's routes and JSON shapes. */
export abstract class HostStandIn {
  url = '';
  pulls: StandInPull[] = [];
  comments = new Map<number, StandInComment[]>();
  requests: StandInRequest[] = [];
  problems: string[] = [];
  labelMode: LabelMode = 'allowed';
  /** Token → username; the first is gpuops's. */
  readonly tokens: Map<string, string>;
  private scripts: StandInScript[] = [];
  private server: Server | null = null;
  protected clock = 0;
  protected nextId = 1;

  protected constructor(
    readonly name: string,
    /** API root below the server's URL (`/api/v4`, `/api/v1`). */
    readonly apiRoot: string,
    readonly token: string,
    readonly username: string,
  ) {
    this.tokens = new Map([[token, username]]);
  }

  /** The token of a request, or null (the host's own header). */
  protected abstract tokenOf(req: IncomingMessage): string | null;
  /** The host's 401 answer body. */
  protected abstract unauthorized(): unknown;
  /** Answers one request; returns false when no route matched. */
  protected abstract route(x: Exchange): boolean;

  protected async listen(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Forgets state, requests, problems and scripts (between tests). */
  reset(): void {
    this.labelMode = 'allowed';
    this.pulls = [];
    this.comments.clear();
    this.requests = [];
    this.problems = [];
    this.scripts = [];
  }

  /** Queues a scripted reply; consumed by the first matching request. */
  script(reply: StandInScript): void {
    this.scripts.push(reply);
  }

  /** Adds a pull request directly (as a person or another replica would). */
  addPull(p: Partial<StandInPull> & { head: string }): StandInPull {
    const pull: StandInPull = {
      number: this.pulls.length + 1,
      state: 'open',
      title: 'A pull request',
      body: '',
      base: 'main',
      labels: [],
      author: this.username,
      fork: false,
      updated: ++this.clock,
      ...p,
    };
    this.pulls.push(pull);
    return pull;
  }

  /** Adds a comment directly (a person's, or a system note). */
  addComment(number: number, body: string, author: string, system = false): StandInComment {
    const c = { id: this.nextId++, body, author, ...(system ? { system } : {}) };
    this.comments.set(number, [...(this.comments.get(number) ?? []), c]);
    return c;
  }

  /** Marks the open pull request of `head` merged (a person pressed Merge); false when none is open. */
  mergeByBranch(head: string): boolean {
    const p = this.pulls.find((x) => x.head === head && x.state === 'open' && !x.fork);
    if (!p) return false;
    p.state = 'merged';
    p.updated = ++this.clock;
    return true;
  }

  /** Requests that change state (anything but GET). */
  writes(): StandInRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  /** Throws when a request was unexpected or malformed, or a scripted reply was never used. */
  verify(): void {
    const unused = this.scripts.map((s) => `unused scripted reply ${s.method} ${s.path} ${s.status ?? ''}`);
    const all = [...this.problems, ...unused];
    if (all.length > 0) throw new Error(`${this.name} stand-in:\n${all.join('\n')}`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const u = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const query = Object.fromEntries(u.searchParams);
    let body: unknown = undefined;
    const reply = (status: number, data: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ method, path: u.pathname, query, body, status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(data === undefined ? '' : JSON.stringify(data));
    };
    const problem = (msg: string) => {
      this.problems.push(`${method} ${u.pathname}${u.search}: ${msg}`);
      reply(400, { message: `${this.name} stand-in: ${msg}` });
    };
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        return problem('body is not JSON');
      }
    }
    const token = this.tokenOf(req);
    const user = token === null ? undefined : this.tokens.get(token);
    if (user === undefined) return reply(401, this.unauthorized());
    const idx = this.scripts.findIndex((s) => s.method === method && s.path === u.pathname);
    if (idx >= 0) {
      const s = this.scripts.splice(idx, 1)[0]!;
      s.before?.();
      if (s.status !== undefined) return reply(s.status, s.body, s.headers);
    }
    if (!u.pathname.startsWith(`${this.apiRoot}/`)) return problem('not under the API root');
    const path = u.pathname.slice(this.apiRoot.length);
    const b =
      body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const x: Exchange = { method, path, query, body: b, user, reply, problem };
    if (!this.route(x)) problem('unexpected request');
  }

  /**
   * One page of `items` (`page` 1-based, `perPage` items) with the `Link` header both hosts send
   * (rel `next`, `prev`, `first`, `last`) built on this request's path and query.
   */
  protected page<T>(
    x: Exchange,
    items: readonly T[],
    page: number,
    perPage: number,
    pageKey: string,
    sizeKey: string,
  ): { items: T[]; link: string; pages: number } {
    const pages = Math.max(1, Math.ceil(items.length / perPage));
    const at = (n: number) => {
      const q = new URLSearchParams({ ...x.query, [pageKey]: String(n), [sizeKey]: String(perPage) });
      return `<${this.url}${this.apiRoot}${x.path}?${q.toString()}>`;
    };
    const rels = [
      ...(page < pages ? [`${at(page + 1)}; rel="next"`] : []),
      ...(page > 1 ? [`${at(page - 1)}; rel="prev"`] : []),
      `${at(1)}; rel="first"`,
      `${at(pages)}; rel="last"`,
    ];
    return { items: items.slice((page - 1) * perPage, page * perPage), link: rels.join(', '), pages };
  }

  /** Field names of `body` not in `allowed`, as a problem message, or null. */
  protected static unknownFields(body: Record<string, unknown>, allowed: readonly string[]): string | null {
    const bad = Object.keys(body).filter((k) => !allowed.includes(k));
    return bad.length > 0 ? `unexpected field(s) ${bad.join(', ')}` : null;
  }

  /** Characters as the hosts count them (code points, not UTF-16 units). */
  protected static chars(s: string): number {
    return [...s].length;
  }
}
