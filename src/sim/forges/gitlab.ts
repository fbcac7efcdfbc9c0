/**
 * A GitLab stand-in: the REST API v4 endpoints gpuops calls, answered as GitLab documents them
 * (docs.gitlab.com/api/merge_requests, /notes, /users, "REST API" pagination and errors):
 *
 * - `GET  /api/v4/user` → the token's user;
 * - `GET  /api/v4/projects/:id/merge_requests` (`state`, `source_branch`, `target_branch`,
 *   `order_by`, `sort`, `page`, `per_page` ≤ 100, default 20) with `x-page`, `x-per-page`,
 *   `x-total`, `x-total-pages`, `x-next-page`, `x-prev-page` and `Link`;
 * - `POST /api/v4/projects/:id/merge_requests` → 201; 409 `["Another open merge request already
 *   exists for this source branch: !N"]`; 400 `{"title":["is too long (maximum is 255
 *   characters)"]}` and the same for a description over 1,048,576;
 * - `PUT  /api/v4/projects/:id/merge_requests/:iid` (`title`, `description`, `add_labels`,
 *   `state_event`) → 200; a label over 255 characters → 400; with labels `forbidden` → 403
 *   `403 Forbidden`, with `left-off` a label not yet in the project is silently left off (GitLab
 *   creates labels only for an account that may);
 * - `GET/POST /api/v4/projects/:id/merge_requests/:iid/notes` (a note over 1,000,000 → 400).
 *
 * `:id` is the numeric project id or its URL-encoded full path. The token goes in `PRIVATE-TOKEN`
 * (or `Authorization: Bearer`); a wrong one is 401 `401 Unauthorized`. Merging, approving and
 * "merge when pipeline succeeds" are not answered: gpuops never asks for them.
 */
import type { IncomingMessage } from 'node:http';
import { HostStandIn, type Exchange, type StandInPull } from './stand-in.js';

/** GitLab's limits the stand-in enforces, characters. */
export const GITLAB_STAND_IN_LIMITS = {
  title: 255,
  description: 1_048_576,
  note: 1_000_000,
  label: 255,
} as const;

/** Options of {@link GitLabStandIn.start}. */
export interface GitLabStandInOptions {
  projectId?: number;
  /** Full path, e.g. `acme/platform/gitops`. */
  projectPath?: string;
  token?: string;
  username?: string;
}

/** The stand-in; `start()` it, `close()` it. */
export class GitLabStandIn extends HostStandIn {
  readonly projectId: number;
  readonly projectPath: string;
  /** Labels the project has (created by an account that may, or by hand). */
  projectLabels = new Set<string>();

  private constructor(o: Required<GitLabStandInOptions>) {
    super('GitLab', '/api/v4', o.token, o.username);
    this.projectId = o.projectId;
    this.projectPath = o.projectPath;
  }

  static async start(o: GitLabStandInOptions = {}): Promise<GitLabStandIn> {
    const s = new GitLabStandIn({
      projectId: o.projectId ?? 42,
      projectPath: o.projectPath ?? 'acme/gitops',
      token: o.token ?? 'glpat-standin-token-0001',
      username: o.username ?? 'gpuops-bot',
    });
    await s.listen();
    return s;
  }

  override reset(): void {
    super.reset();
    this.projectLabels.clear();
  }

  /** The web address of merge request `iid`. */
  webUrl(iid: number): string {
    return `${this.url}/${this.projectPath}/-/merge_requests/${iid}`;
  }

  protected tokenOf(req: IncomingMessage): string | null {
    const header = req.headers['private-token'];
    if (typeof header === 'string') return header;
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    return m ? m[1]! : null;
  }

  protected unauthorized(): unknown {
    return { message: '401 Unauthorized' };
  }

  private json(p: StandInPull): Record<string, unknown> {
    return {
      id: 1000 + p.number,
      iid: p.number,
      project_id: this.projectId,
      title: p.title,
      description: p.body,
      state: p.state === 'open' ? 'opened' : p.state,
      source_branch: p.head,
      target_branch: p.base,
      source_project_id: p.fork ? this.projectId + 1000 : this.projectId,
      target_project_id: this.projectId,
      labels: [...p.labels],
      author: { username: p.author },
      web_url: this.webUrl(p.number),
      updated_at: new Date(Date.UTC(2025, 0, 1) + p.updated * 1000).toISOString(),
    };
  }

  protected route(x: Exchange): boolean {
    if (x.path === '/user' && x.method === 'GET') {
      x.reply(200, { id: 7, username: x.user, name: x.user, state: 'active' });
      return true;
    }
    const m = /^\/projects\/([^/]+)(\/.*)$/.exec(x.path);
    if (!m) return false;
    const id = decodeURIComponent(m[1]!);
    if (id !== String(this.projectId) && id !== this.projectPath) {
      x.reply(404, { message: '404 Project Not Found' });
      return true;
    }
    const rest = m[2]!;
    if (rest === '/merge_requests') return x.method === 'GET' ? this.list(x) : this.create(x);
    const one = /^\/merge_requests\/(\d+)(\/notes)?$/.exec(rest);
    if (!one) return false;
    const pull = this.pulls.find((p) => p.number === Number(one[1]));
    if (!pull) {
      x.reply(404, { message: '404 Not found' });
      return true;
    }
    if (one[2]) return this.notes(x, pull);
    if (x.method === 'GET') {
      x.reply(200, this.json(pull));
      return true;
    }
    return x.method === 'PUT' ? this.edit(x, pull) : false;
  }

  private perPage(x: Exchange): number {
    return Math.min(100, Math.max(1, Number(x.query.per_page ?? 20) || 20));
  }

  private paged(x: Exchange, items: readonly unknown[]): void {
    const page = Math.max(1, Number(x.query.page ?? 1) || 1);
    const perPage = this.perPage(x);
    const p = this.page(x, items, page, perPage, 'page', 'per_page');
    x.reply(200, p.items, {
      link: p.link,
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-total': String(items.length),
      'x-total-pages': String(p.pages),
      'x-next-page': page < p.pages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
    });
  }

  private list(x: Exchange): boolean {
    const allowed = ['state', 'source_branch', 'target_branch', 'order_by', 'sort', 'page', 'per_page'];
    const bad = Object.keys(x.query).find((k) => !allowed.includes(k));
    if (bad) {
      x.problem(`unexpected query ${bad}`);
      return true;
    }
    const state = x.query.state ?? 'all';
    const wanted = (p: StandInPull) => (p.state === 'open' ? 'opened' : p.state);
    const items = this.pulls
      .filter((p) => state === 'all' || wanted(p) === state)
      .filter((p) => x.query.source_branch === undefined || p.head === x.query.source_branch)
      .filter((p) => x.query.target_branch === undefined || p.base === x.query.target_branch)
      .sort((a, b) => (x.query.sort === 'asc' ? a.updated - b.updated : b.updated - a.updated))
      .map((p) => this.json(p));
    this.paged(x, items);
    return true;
  }

  /** GitLab's 400 for fields over their limits, or null. */
  private tooLong(fields: Record<string, unknown>, limits: Record<string, number>): unknown {
    const over = Object.entries(limits).filter(
      ([k, max]) => typeof fields[k] === 'string' && HostStandIn.chars(fields[k]) > max,
    );
    if (over.length === 0) return null;
    return {
      message: Object.fromEntries(
        over.map(([k, max]) => [k, [`is too long (maximum is ${max} characters)`]]),
      ),
    };
  }

  private create(x: Exchange): boolean {
    if (x.method !== 'POST') return false;
    const bad = HostStandIn.unknownFields(x.body, ['source_branch', 'target_branch', 'title', 'description']);
    if (bad) {
      x.problem(bad);
      return true;
    }
    for (const k of ['source_branch', 'target_branch', 'title'])
      if (typeof x.body[k] !== 'string' || x.body[k] === '') {
        x.reply(400, { error: `${k} is missing` });
        return true;
      }
    const invalid = this.tooLong(x.body, {
      title: GITLAB_STAND_IN_LIMITS.title,
      description: GITLAB_STAND_IN_LIMITS.description,
    });
    if (invalid) {
      x.reply(400, invalid);
      return true;
    }
    const { source_branch: head, target_branch: base } = x.body as Record<string, string>;
    const open = this.pulls.find((p) => p.state === 'open' && !p.fork && p.head === head && p.base === base);
    if (open) {
      x.reply(409, {
        message: [`Another open merge request already exists for this source branch: !${open.number}`],
      });
      return true;
    }
    const pull = this.addPull({
      head: head!,
      base: base!,
      title: x.body.title as string,
      body: typeof x.body.description === 'string' ? x.body.description : '',
      author: x.user,
    });
    x.reply(201, this.json(pull));
    return true;
  }

  private edit(x: Exchange, pull: StandInPull): boolean {
    const bad = HostStandIn.unknownFields(x.body, ['title', 'description', 'add_labels', 'state_event']);
    if (bad || Object.keys(x.body).length === 0) {
      x.problem(bad ?? 'empty update');
      return true;
    }
    const invalid = this.tooLong(x.body, {
      title: GITLAB_STAND_IN_LIMITS.title,
      description: GITLAB_STAND_IN_LIMITS.description,
    });
    if (invalid) {
      x.reply(400, invalid);
      return true;
    }
    if (typeof x.body.add_labels === 'string' && !this.addLabels(x, pull, x.body.add_labels)) return true;
    if (typeof x.body.title === 'string') pull.title = x.body.title;
    if (typeof x.body.description === 'string') pull.body = x.body.description;
    if (x.body.state_event === 'close' && pull.state === 'open') pull.state = 'closed';
    if (x.body.state_event === 'reopen' && pull.state === 'closed') pull.state = 'open';
    pull.updated = ++this.clock;
    x.reply(200, this.json(pull));
    return true;
  }

  /** `add_labels` (comma-separated) as GitLab takes it; false when it answered an error already. */
  private addLabels(x: Exchange, pull: StandInPull, list: string): boolean {
    const names = list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (this.labelMode === 'forbidden') {
      x.reply(403, { message: '403 Forbidden' });
      return false;
    }
    if (names.some((n) => HostStandIn.chars(n) > GITLAB_STAND_IN_LIMITS.label)) {
      x.reply(400, {
        message: { title: [`is too long (maximum is ${GITLAB_STAND_IN_LIMITS.label} characters)`] },
      });
      return false;
    }
    const take = this.labelMode === 'left-off' ? names.filter((n) => this.projectLabels.has(n)) : names;
    for (const n of take) this.projectLabels.add(n);
    pull.labels = [...new Set([...pull.labels, ...take])];
    return true;
  }

  private notes(x: Exchange, pull: StandInPull): boolean {
    const list = this.comments.get(pull.number) ?? [];
    if (x.method === 'GET') {
      const items = list.map((c) => ({
        id: c.id,
        body: c.body,
        system: c.system ?? false,
        author: { username: c.author },
      }));
      this.paged(x, items);
      return true;
    }
    if (x.method !== 'POST') return false;
    const bad = HostStandIn.unknownFields(x.body, ['body']);
    if (bad || typeof x.body.body !== 'string') {
      x.problem(bad ?? 'body must be a string');
      return true;
    }
    if (HostStandIn.chars(x.body.body) > GITLAB_STAND_IN_LIMITS.note) {
      x.reply(400, {
        message: { note: [`is too long (maximum is ${GITLAB_STAND_IN_LIMITS.note} characters)`] },
      });
      return true;
    }
    const c = this.addComment(pull.number, x.body.body, x.user);
    x.reply(201, { id: c.id, body: c.body, system: false, author: { username: c.author } });
    return true;
  }
}
