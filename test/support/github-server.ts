/**
 * A fake GitHub REST API for tests: a node:http server on 127.0.0.1 answering exactly the
 * endpoints gpuops calls, keeping state (pull requests, comments, labels) and checking every
 * request — method, path, query, body and the `authorization` header. Anything else is recorded
 * as an unexpected request and answered 400; `verify()` fails the test on an unexpected request
 * and on a scripted reply that was never used (as Renovate's HTTP mock does).
 *
 * Endpoints:
 * - `GET    /repos/{owner}/{repo}/pulls`                 (state, head, base, sort, direction, per_page, page)
 * - `POST   /repos/{owner}/{repo}/pulls`                 (title, head, base, body) — 422 when an open PR exists
 * - `PATCH  /repos/{owner}/{repo}/pulls/{n}`             (title, body, state)
 * - `GET    /repos/{owner}/{repo}/issues/{n}/comments`   (per_page, page)
 * - `POST   /repos/{owner}/{repo}/issues/{n}/comments`   (body)
 * - `POST   /repos/{owner}/{repo}/issues/{n}/labels`     (labels)
 * - `GET    /user`                                       (the token's account)
 *
 * Pull requests carry their head repository (`head.repo.full_name`: the repo itself, or a fork's
 * `owner/name` as a person's pull request from a fork does) and comments their author (`user.login`,
 * `user.type`): gpuops's own comments are by the token's account ({@link FakeGitHub.login}), others
 * are added with {@link FakeGitHub.addComment}. With `user: 'integration'` `GET /user` answers 403
 * "Resource not accessible by integration", as for a GitHub App installation token, whose comments
 * are by `<app>[bot]`, type `Bot`.
 *
 * It enforces GitHub's validation limits as GitHub answers them: a pull-request title over 256
 * characters, a body over 65,536, or a comment over 65,536 is `422 Validation Failed` with
 * `errors[].field` and "… is too long (maximum is N characters)" (characters counted as code
 * points, as GitHub does). With `labels: 'forbidden'` adding labels answers 403 "You do not have
 * permission to create labels on this repository." (a token that may open pull requests but not
 * create labels).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakePull {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  title: string;
  body: string;
  head: string;
  base: string;
  labels: string[];
  /** Monotonic counter standing in for `updated_at`. */
  updated: number;
  /** `owner/name` of the head branch's repository: the repo itself unless from a fork. */
  headRepo?: string;
}

export interface FakeComment {
  id: number;
  body: string;
  /** Who wrote it (GitHub's `user.login`, `user.type`). */
  user: { login: string; type: 'User' | 'Bot' };
}

/** One recorded request. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

/** A scripted answer to the next request matching `method` and `path` (exact pathname). */
export interface ScriptedReply {
  method: string;
  path: string;
  /** Runs first (e.g. to change state, as a concurrent actor would). */
  before?: (gh: FakeGitHub) => void;
  /** When set, answers with this status instead of the normal handler. */
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** 403 secondary rate limit without `retry-after` (GitHub then asks to wait at least a minute). */
export function secondaryRateLimit(method: string, path: string): ScriptedReply {
  return {
    method,
    path,
    status: 403,
    body: {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      documentation_url:
        'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
    },
  };
}

/** 429 with `retry-after: seconds`. */
export function tooManyRequests(method: string, path: string, seconds: number): ScriptedReply {
  return {
    method,
    path,
    status: 429,
    headers: { 'retry-after': String(seconds) },
    body: { message: 'Too Many Requests' },
  };
}

/** 403 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` (epoch seconds). */
export function primaryRateLimit(method: string, path: string, resetEpochSeconds: number): ScriptedReply {
  return {
    method,
    path,
    status: 403,
    headers: {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '5000',
      'x-ratelimit-reset': String(resetEpochSeconds),
    },
    body: { message: 'API rate limit exceeded for installation ID 1.' },
  };
}

/** 403 for a token without permission (not a rate limit). */
export function permissionDenied(method: string, path: string): ScriptedReply {
  return {
    method,
    path,
    status: 403,
    headers: { 'x-ratelimit-remaining': '4990' },
    body: {
      message: 'Resource not accessible by integration',
      documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
    },
  };
}

type Check = (body: Record<string, unknown>) => string | null;

function keys(allowed: string[], required: Record<string, 'string' | 'string[]' | 'number'>): Check {
  return (body) => {
    for (const k of Object.keys(body)) if (!allowed.includes(k)) return `unexpected field ${k}`;
    for (const [k, t] of Object.entries(required)) {
      const v = body[k];
      const ok =
        t === 'string[]' ? Array.isArray(v) && v.every((x) => typeof x === 'string') : typeof v === t;
      if (!ok) return `field ${k} must be ${t}`;
    }
    return null;
  };
}

/** GitHub's limits on a pull request's title and body and on a comment (characters). */
export const GITHUB_LIMITS = { title: 256, body: 65_536, comment: 65_536 } as const;

/** Characters as GitHub counts them (code points), not UTF-16 units. */
function chars(s: string): number {
  return [...s].length;
}

/** GitHub's 422 body for fields over their limits, or null when every field fits. */
function tooLong(
  resource: 'Issue' | 'IssueComment',
  fields: Record<string, unknown>,
  limits: Record<string, number>,
): Record<string, unknown> | null {
  const errors = Object.entries(limits)
    .filter(([field]) => typeof fields[field] === 'string' && chars(fields[field] as string) > limits[field]!)
    .map(([field, max]) => ({
      resource,
      code: 'custom',
      field,
      message: `${field} is too long (maximum is ${max} characters)`,
    }));
  return errors.length === 0
    ? null
    : {
        message: 'Validation Failed',
        errors,
        documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      };
}

/** The fake server. Start with {@link FakeGitHub.start}; `close()` in `afterAll`. */
export class FakeGitHub {
  readonly owner: string;
  readonly repo: string;
  readonly token: string;
  url = '';
  pulls: FakePull[] = [];
  comments = new Map<number, FakeComment[]>();
  requests: RecordedRequest[] = [];
  /** Problems found in requests; `verify()` throws when there is any. */
  problems: string[] = [];
  private scripts: ScriptedReply[] = [];
  private server: Server | null = null;
  private clock = 0;
  private nextId = 1;

  /** `forbidden`: adding labels answers 403, as for a token that may not create labels. */
  labels: 'allowed' | 'forbidden' = 'allowed';
  /**
   * The token's account: `user` (a person's or a machine user's token; `GET /user` answers its
   * login) or `integration` (a GitHub App installation token: `GET /user` is 403, comments are by
   * `gpuops-app[bot]`, type Bot).
   */
  user: 'user' | 'integration' = 'user';
  /** Login of the token's account (the author of every comment and pull request gpuops makes). */
  get login(): string {
    return this.user === 'integration' ? 'gpuops-app[bot]' : 'gpuops-bot';
  }

  private constructor(owner: string, repo: string, token: string) {
    this.owner = owner;
    this.repo = repo;
    this.token = token;
  }

  /** Starts on 127.0.0.1 with a free port. */
  static async start(
    opts: {
      owner?: string;
      repo?: string;
      token?: string;
      labels?: 'allowed' | 'forbidden';
      user?: 'user' | 'integration';
    } = {},
  ): Promise<FakeGitHub> {
    const gh = new FakeGitHub(opts.owner ?? 'acme', opts.repo ?? 'gitops', opts.token ?? 'ghs_testtoken123');
    gh.labels = opts.labels ?? 'allowed';
    gh.user = opts.user ?? 'user';
    gh.server = createServer((req, res) => void gh.handle(req, res));
    await new Promise<void>((r) => gh.server!.listen(0, '127.0.0.1', r));
    gh.url = `http://127.0.0.1:${(gh.server.address() as AddressInfo).port}`;
    return gh;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  /** Forgets state, requests, problems and scripts (between tests). */
  reset(): void {
    this.labels = 'allowed';
    this.user = 'user';
    this.pulls = [];
    this.comments.clear();
    this.requests = [];
    this.problems = [];
    this.scripts = [];
  }

  /** Queues a scripted reply; consumed by the first matching request. */
  script(reply: ScriptedReply): void {
    this.scripts.push(reply);
  }

  /** Adds a pull request directly (as a person or another replica would). */
  addPull(p: Partial<FakePull> & { head: string; base?: string }): FakePull {
    const pull: FakePull = {
      number: this.pulls.length + 1,
      state: 'open',
      merged: false,
      title: 'A pull request',
      body: '',
      base: 'main',
      labels: [],
      updated: ++this.clock,
      ...p,
    };
    this.pulls.push(pull);
    return pull;
  }

  /** Adds a comment by someone else (a person by default), as they would through the web UI. */
  addComment(
    number: number,
    body: string,
    user: FakeComment['user'] = { login: 'mallory', type: 'User' },
  ): FakeComment {
    const c = { id: this.nextId++, body, user };
    this.comments.set(number, [...(this.comments.get(number) ?? []), c]);
    return c;
  }

  /** Requests that change state (anything but GET). */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  /** Throws when a request was unexpected or malformed, or a scripted reply was never used. */
  verify(): void {
    const unused = this.scripts.map((s) => `unused scripted reply ${s.method} ${s.path} ${s.status ?? ''}`);
    const all = [...this.problems, ...unused];
    if (all.length > 0) throw new Error(`fake GitHub:\n${all.join('\n')}`);
  }

  /** Whether a pull request's head branch is in this owner's repository (not a fork's). */
  private ownHead(p: FakePull): boolean {
    return (p.headRepo ?? `${this.owner}/`).startsWith(`${this.owner}/`);
  }

  private json(pull: FakePull): Record<string, unknown> {
    return {
      number: pull.number,
      html_url: `https://github.example/${this.owner}/${this.repo}/pull/${pull.number}`,
      state: pull.state,
      merged_at: pull.merged ? '2025-01-01T00:00:00Z' : null,
      title: pull.title,
      body: pull.body,
      head: {
        ref: pull.head,
        label: `${(pull.headRepo ?? `${this.owner}/`).split('/')[0]}:${pull.head}`,
        repo: { full_name: pull.headRepo ?? `${this.owner}/${this.repo}` },
      },
      base: {
        ref: pull.base,
        label: `${this.owner}:${pull.base}`,
        repo: { full_name: `${this.owner}/${this.repo}` },
      },
      labels: pull.labels.map((name) => ({ name })),
      updated_at: new Date(Date.UTC(2025, 0, 1) + pull.updated * 1000).toISOString(),
    };
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
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(data === undefined ? '' : JSON.stringify(data));
    };
    const problem = (msg: string) => {
      this.problems.push(`${method} ${u.pathname}${u.search}: ${msg}`);
      reply(400, { message: `fake GitHub: ${msg}` });
    };
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        return problem('body is not JSON');
      }
    }
    if (req.headers.authorization !== `token ${this.token}`) {
      return problem(`authorization header ${JSON.stringify(req.headers.authorization)}`);
    }
    const idx = this.scripts.findIndex((s) => s.method === method && s.path === u.pathname);
    if (idx >= 0) {
      const s = this.scripts.splice(idx, 1)[0]!;
      s.before?.(this);
      if (s.status !== undefined) return reply(s.status, s.body, s.headers);
    }
    if (u.pathname === '/user' && method === 'GET') {
      return this.user === 'integration'
        ? reply(403, {
            message: 'Resource not accessible by integration',
            documentation_url: 'https://docs.github.com/rest/users/users#get-the-authenticated-user',
          })
        : reply(200, { login: this.login, type: 'User' });
    }
    const prefix = `/repos/${this.owner}/${this.repo}`;
    const path = u.pathname.startsWith(prefix) ? u.pathname.slice(prefix.length) : null;
    if (path === null) return problem('unknown repository');
    const b = (body ?? {}) as Record<string, unknown>;
    let m: RegExpExecArray | null;

    if (path === '/pulls' && method === 'GET') {
      const allowed = ['state', 'head', 'base', 'sort', 'direction', 'per_page', 'page'];
      const bad = Object.keys(query).find((k) => !allowed.includes(k));
      if (bad) return problem(`unexpected query ${bad}`);
      if (query.head && !query.head.startsWith(`${this.owner}:`)) return problem('head must be owner:branch');
      const state = query.state ?? 'open';
      const head = query.head?.slice(this.owner.length + 1);
      const list = this.pulls
        .filter((p) => state === 'all' || p.state === state)
        // `head=owner:branch` matches the branch of that owner's repository only, as GitHub's does.
        .filter((p) => head === undefined || (p.head === head && this.ownHead(p)))
        .filter((p) => query.base === undefined || p.base === query.base)
        .sort((a, b2) => b2.updated - a.updated);
      return reply(
        200,
        list.map((p) => this.json(p)),
      );
    }
    if (path === '/pulls' && method === 'POST') {
      const err = keys(['title', 'head', 'base', 'body'], {
        title: 'string',
        head: 'string',
        base: 'string',
        body: 'string',
      })(b);
      if (err) return problem(err);
      const invalid = tooLong('Issue', b, { title: GITHUB_LIMITS.title, body: GITHUB_LIMITS.body });
      if (invalid) return reply(422, invalid);
      // `head` names a branch of this repository: a fork's open pull request from a branch of the
      // same name is no conflict, as on GitHub.
      if (
        this.pulls.some(
          (p) => p.state === 'open' && this.ownHead(p) && p.head === b.head && p.base === b.base,
        )
      ) {
        return reply(422, {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: `A pull request already exists for ${this.owner}:${String(b.head)}.`,
            },
          ],
          documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
        });
      }
      const pull = this.addPull({
        title: b.title as string,
        body: b.body as string,
        head: b.head as string,
        base: b.base as string,
      });
      return reply(201, this.json(pull));
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(path)) && method === 'PATCH') {
      const err = keys(['title', 'body', 'state'], {})(b);
      if (err || Object.keys(b).length === 0) return problem(err ?? 'empty update');
      const pull = this.pulls.find((p) => p.number === Number(m![1]));
      if (!pull) return reply(404, { message: 'Not Found' });
      const invalid = tooLong('Issue', b, { title: GITHUB_LIMITS.title, body: GITHUB_LIMITS.body });
      if (invalid) return reply(422, invalid);
      if (typeof b.title === 'string') pull.title = b.title;
      if (typeof b.body === 'string') pull.body = b.body;
      if (b.state === 'open' || b.state === 'closed') pull.state = b.state;
      pull.updated = ++this.clock;
      return reply(200, this.json(pull));
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(path))) {
      const n = Number(m[1]);
      if (!this.pulls.some((p) => p.number === n)) return reply(404, { message: 'Not Found' });
      const list = this.comments.get(n) ?? [];
      if (method === 'GET')
        return reply(
          200,
          list.map((c) => ({ id: c.id, body: c.body, user: c.user })),
        );
      if (method === 'POST') {
        const err = keys(['body'], { body: 'string' })(b);
        if (err) return problem(err);
        const invalid = tooLong('IssueComment', b, { body: GITHUB_LIMITS.comment });
        if (invalid) return reply(422, invalid);
        const c: FakeComment = {
          id: this.nextId++,
          body: b.body as string,
          user: { login: this.login, type: this.user === 'integration' ? 'Bot' : 'User' },
        };
        this.comments.set(n, [...list, c]);
        return reply(201, c);
      }
    }
    if ((m = /^\/issues\/(\d+)\/labels$/.exec(path)) && method === 'POST') {
      const err = keys(['labels'], { labels: 'string[]' })(b);
      if (err) return problem(err);
      const pull = this.pulls.find((p) => p.number === Number(m![1]));
      if (!pull) return reply(404, { message: 'Not Found' });
      if (this.labels === 'forbidden')
        return reply(403, {
          message: 'You do not have permission to create labels on this repository.',
          errors: [{ resource: 'Repository', field: 'label', code: 'unauthorized' }],
          documentation_url: 'https://docs.github.com/rest/issues/labels#add-labels-to-an-issue',
          status: '403',
        });
      pull.labels = [...new Set([...pull.labels, ...(b.labels as string[])])];
      return reply(
        200,
        pull.labels.map((name) => ({ name })),
      );
    }
    return problem('unexpected request');
  }
}
