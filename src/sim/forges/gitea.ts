/**
 * A Gitea/Forgejo stand-in: the API v1 endpoints gpuops calls, answered as Gitea documents them
 * (its swagger, `routers/api/v1/repo/pull.go`, `issue_comment.go`, `label.go`):
 *
 * - `GET   /api/v1/user` → the token's user (`login`);
 * - `GET   /api/v1/repos/{o}/{r}/pulls` (`state` open|closed|all, `sort`, `page`, `limit` ≤ 50)
 *   with `X-Total-Count` and `Link`; no `head` filter (Gitea has none);
 * - `POST  /api/v1/repos/{o}/{r}/pulls` → 201; 409 "pull request already exists for these targets
 *   […]" when an open one of the same branches exists; 422 for a title over 255 characters;
 * - `PATCH /api/v1/repos/{o}/{r}/pulls/{index}` (`title`, `body`, `state`) → 201 (Gitea's edit
 *   answers Created);
 * - `GET/POST /api/v1/repos/{o}/{r}/issues/{index}/comments` (the list is not paged);
 * - `GET   /api/v1/repos/{o}/{r}/labels` (paged), `POST …/labels` (`name`, `color` `#rrggbb`),
 *   `POST  …/issues/{index}/labels` (`labels`: ids; an unknown id is 422); with labels
 *   `forbidden` both writes answer 403.
 *
 * The token goes in `Authorization: token …`; a wrong one is 401. Merging is not answered.
 */
import type { IncomingMessage } from 'node:http';
import { HostStandIn, type Exchange, type StandInPull } from './stand-in.js';

/** Gitea's limits the stand-in enforces. */
export const GITEA_STAND_IN_LIMITS = { title: 255, maxPageSize: 50, defaultPageSize: 30 } as const;

/** The stand-in; `start()` it, `close()` it. */
export class GiteaStandIn extends HostStandIn {
  readonly owner: string;
  readonly repo: string;
  /** The repository's labels: name → id. */
  repoLabels = new Map<string, number>();

  private constructor(owner: string, repo: string, token: string, username: string) {
    super('Gitea', '/api/v1', token, username);
    this.owner = owner;
    this.repo = repo;
  }

  static async start(
    o: { owner?: string; repo?: string; token?: string; username?: string } = {},
  ): Promise<GiteaStandIn> {
    const s = new GiteaStandIn(
      o.owner ?? 'acme',
      o.repo ?? 'gitops',
      o.token ?? 'gitea-standin-token-01',
      o.username ?? 'gpuops-bot',
    );
    await s.listen();
    return s;
  }

  override reset(): void {
    super.reset();
    this.repoLabels.clear();
  }

  protected tokenOf(req: IncomingMessage): string | null {
    const m = /^token (.+)$/.exec(req.headers.authorization ?? '');
    return m ? m[1]! : null;
  }

  protected unauthorized(): unknown {
    return { message: 'user does not exist', url: `${this.url}/api/swagger` };
  }

  private json(p: StandInPull): Record<string, unknown> {
    const full = `${this.owner}/${this.repo}`;
    return {
      id: 1000 + p.number,
      number: p.number,
      html_url: `${this.url}/${full}/pulls/${p.number}`,
      state: p.state === 'open' ? 'open' : 'closed',
      merged: p.state === 'merged',
      title: p.title,
      body: p.body,
      user: { login: p.author },
      labels: p.labels.map((name) => ({ id: this.repoLabels.get(name) ?? 0, name, color: '6f42c1' })),
      head: { ref: p.head, label: p.head, repo: { full_name: p.fork ? `someone/${this.repo}` : full } },
      base: { ref: p.base, label: p.base, repo: { full_name: full } },
      updated_at: new Date(Date.UTC(2025, 0, 1) + p.updated * 1000).toISOString(),
    };
  }

  private paged(x: Exchange, items: readonly unknown[]): void {
    const page = Math.max(1, Number(x.query.page ?? 1) || 1);
    const asked =
      Number(x.query.limit ?? GITEA_STAND_IN_LIMITS.defaultPageSize) || GITEA_STAND_IN_LIMITS.defaultPageSize;
    const limit = Math.min(GITEA_STAND_IN_LIMITS.maxPageSize, Math.max(1, asked));
    const p = this.page(x, items, page, limit, 'page', 'limit');
    x.reply(200, p.items, { link: p.link, 'x-total-count': String(items.length) });
  }

  protected route(x: Exchange): boolean {
    if (x.path === '/user' && x.method === 'GET') {
      x.reply(200, { id: 7, login: x.user, full_name: x.user });
      return true;
    }
    const prefix = `/repos/${this.owner}/${this.repo}`;
    if (!x.path.startsWith(prefix)) {
      if (!x.path.startsWith('/repos/')) return false;
      x.reply(404, { message: "The target couldn't be found.", errors: [] });
      return true;
    }
    const rest = x.path.slice(prefix.length);
    if (rest === '/pulls') return x.method === 'GET' ? this.list(x) : this.create(x);
    if (rest === '/labels') return this.labelsRoute(x);
    const m = /^\/(pulls|issues)\/(\d+)(\/comments|\/labels)?$/.exec(rest);
    if (!m) return false;
    const pull = this.pulls.find((p) => p.number === Number(m[2]));
    if (!pull) {
      x.reply(404, { message: "The target couldn't be found.", errors: [] });
      return true;
    }
    if (m[1] === 'pulls' && !m[3] && x.method === 'PATCH') return this.edit(x, pull);
    if (m[1] === 'issues' && m[3] === '/comments') return this.commentsRoute(x, pull);
    if (m[1] === 'issues' && m[3] === '/labels' && x.method === 'POST') return this.addLabels(x, pull);
    return false;
  }

  private list(x: Exchange): boolean {
    const allowed = ['state', 'sort', 'page', 'limit'];
    const bad = Object.keys(x.query).find((k) => !allowed.includes(k));
    if (bad) {
      x.problem(`unexpected query ${bad}`);
      return true;
    }
    const state = x.query.state ?? 'open';
    const items = this.pulls
      .filter((p) => state === 'all' || (state === 'open' ? p.state === 'open' : p.state !== 'open'))
      .sort((a, b) => b.updated - a.updated)
      .map((p) => this.json(p));
    this.paged(x, items);
    return true;
  }

  private create(x: Exchange): boolean {
    if (x.method !== 'POST') return false;
    const bad = HostStandIn.unknownFields(x.body, ['head', 'base', 'title', 'body']);
    if (bad || typeof x.body.head !== 'string' || typeof x.body.base !== 'string') {
      x.problem(bad ?? 'head and base must be strings');
      return true;
    }
    const title = typeof x.body.title === 'string' ? x.body.title : '';
    if (title === '' || HostStandIn.chars(title) > GITEA_STAND_IN_LIMITS.title) {
      x.reply(422, {
        message: title === '' ? '[Title]: Required' : '[Title]: MaxSize',
        url: `${this.url}/api/swagger`,
      });
      return true;
    }
    const { head, base } = x.body as Record<string, string>;
    const open = this.pulls.find((p) => p.state === 'open' && !p.fork && p.head === head && p.base === base);
    if (open) {
      x.reply(409, {
        message: `pull request already exists for these targets [id: ${1000 + open.number}, issue_id: ${open.number}, head_repo_id: 1, base_repo_id: 1, head_branch: ${head}, base_branch: ${base}]`,
        url: `${this.url}/api/swagger`,
      });
      return true;
    }
    const pull = this.addPull({
      head: head!,
      base: base!,
      title,
      body: typeof x.body.body === 'string' ? x.body.body : '',
      author: x.user,
    });
    x.reply(201, this.json(pull));
    return true;
  }

  private edit(x: Exchange, pull: StandInPull): boolean {
    const bad = HostStandIn.unknownFields(x.body, ['title', 'body', 'state']);
    if (bad || Object.keys(x.body).length === 0) {
      x.problem(bad ?? 'empty update');
      return true;
    }
    if (typeof x.body.title === 'string' && HostStandIn.chars(x.body.title) > GITEA_STAND_IN_LIMITS.title) {
      x.reply(422, { message: '[Title]: MaxSize', url: `${this.url}/api/swagger` });
      return true;
    }
    if (typeof x.body.title === 'string') pull.title = x.body.title;
    if (typeof x.body.body === 'string') pull.body = x.body.body;
    if (x.body.state === 'closed' && pull.state === 'open') pull.state = 'closed';
    pull.updated = ++this.clock;
    x.reply(201, this.json(pull));
    return true;
  }

  private commentsRoute(x: Exchange, pull: StandInPull): boolean {
    if (x.method === 'GET') {
      const list = this.comments.get(pull.number) ?? [];
      x.reply(
        200,
        list.map((c) => ({ id: c.id, body: c.body, user: { login: c.author } })),
      );
      return true;
    }
    if (x.method !== 'POST') return false;
    const bad = HostStandIn.unknownFields(x.body, ['body']);
    if (bad || typeof x.body.body !== 'string') {
      x.problem(bad ?? 'body must be a string');
      return true;
    }
    const c = this.addComment(pull.number, x.body.body, x.user);
    x.reply(201, { id: c.id, body: c.body, user: { login: c.author } });
    return true;
  }

  private forbidden(x: Exchange): boolean {
    x.reply(403, {
      message: 'token does not have at least one of required scope(s): [write:issue]',
      url: `${this.url}/api/swagger`,
    });
    return true;
  }

  private labelsRoute(x: Exchange): boolean {
    if (x.method === 'GET') {
      this.paged(
        x,
        [...this.repoLabels].map(([name, id]) => ({ id, name, color: '6f42c1' })),
      );
      return true;
    }
    if (x.method !== 'POST') return false;
    if (this.labelMode === 'forbidden') return this.forbidden(x);
    const bad = HostStandIn.unknownFields(x.body, ['name', 'color', 'description']);
    if (bad || typeof x.body.name !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(String(x.body.color))) {
      x.problem(bad ?? 'name and color (#rrggbb) are required');
      return true;
    }
    if (this.repoLabels.has(x.body.name)) {
      x.reply(409, { message: 'label already exists', url: `${this.url}/api/swagger` });
      return true;
    }
    const id = this.nextId++;
    this.repoLabels.set(x.body.name, id);
    x.reply(201, { id, name: x.body.name, color: String(x.body.color).slice(1) });
    return true;
  }

  private addLabels(x: Exchange, pull: StandInPull): boolean {
    if (this.labelMode === 'forbidden') return this.forbidden(x);
    const ids = x.body.labels;
    if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'number')) {
      x.problem('labels must be a list of label ids');
      return true;
    }
    const byId = new Map([...this.repoLabels].map(([name, id]) => [id, name]));
    const unknown = ids.find((i) => !byId.has(i as number));
    if (unknown !== undefined) {
      x.reply(422, {
        message: `label does not exist [id: ${String(unknown)}]`,
        url: `${this.url}/api/swagger`,
      });
      return true;
    }
    pull.labels = [...new Set([...pull.labels, ...ids.map((i) => byId.get(i as number)!)])];
    pull.updated = ++this.clock;
    x.reply(
      200,
      pull.labels.map((name) => ({ id: this.repoLabels.get(name), name })),
    );
    return true;
  }
}
