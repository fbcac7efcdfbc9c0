/**
 * One face for the three pull-request host stand-ins (the fake GitHub, the GitLab and the Gitea
 * stand-ins), so that one scenario table runs against every host (`write-back-hosts.test.ts`):
 * a host built against its stand-in, the stand-in's state read in gpuops's terms, and the host's
 * own answers for a rate limit, a failing server and a refusal scripted on one operation.
 */
import { GitHubHost } from '../../src/git-hosts/github-host.js';
import { GiteaHost } from '../../src/git-hosts/gitea-host.js';
import { GitLabHost } from '../../src/git-hosts/gitlab-host.js';
import type { PullRequestHost } from '../../src/git-hosts/pr-host.js';
import { GiteaStandIn } from '../../src/sim/forges/gitea.js';
import { GitLabStandIn } from '../../src/sim/forges/gitlab.js';
import type { HostStandIn, StandInPull } from '../../src/sim/forges/stand-in.js';
import { FakeGitHub, permissionDenied, primaryRateLimit, tooManyRequests } from './github-server.js';

/** The operations a scenario scripts an answer for. */
export type Op = 'create' | 'update' | 'list';

/** A pull request as a scenario reads it. */
export interface KitPull {
  number: number;
  state: 'open' | 'closed' | 'merged';
  title: string;
  body: string;
  head: string;
  labels: string[];
}

/** Options of a kit's host. */
export interface KitHostOptions {
  /** Longest wait taken, seconds (default 60). */
  maxWaitSeconds?: number;
  /** Milliseconds per second asked (default 1: waits are instant). */
  msPerSecond?: number;
  /** Every wait asked for, in seconds. */
  waits?: number[];
}

/** A stand-in and the host over it. */
export interface ForgeKit {
  name: 'github' | 'gitlab' | 'gitea';
  token: string;
  /** gpuops's account on the stand-in. */
  account: string;
  /** The host's limit on a title, characters. */
  titleMax: number;
  host(o?: KitHostOptions): PullRequestHost;
  pulls(): KitPull[];
  addPull(head: string, p?: { title?: string; body?: string; fork?: boolean }): number;
  setState(number: number, state: 'open' | 'closed' | 'merged'): void;
  comments(number: number): { body: string; author: string }[];
  addComment(number: number, body: string, author: string): void;
  forbidLabels(): void;
  /** Statuses answered to `op`, in order. */
  statuses(op: Op): number[];
  writes(): number;
  /** The next `op` is answered 429, to be waited `seconds`. */
  scriptTooManyRequests(op: Op, seconds: number): void;
  /** The next `op` is answered 429 with a limit that resets at `epochSeconds`. */
  scriptRateLimitUntil(op: Op, epochSeconds: number): void;
  /** The next `op` is answered 403: the token may not. */
  scriptPermissionDenied(op: Op): void;
  /** The next `op` is answered 502 by a proxy. */
  scriptBadGateway(op: Op): void;
  /** Another writer opens the PR of `head` right before the next create is received. */
  scriptRacingCreate(head: string): void;
  verify(): void;
  reset(): void;
  close(): Promise<void>;
}

const githubKit = async (): Promise<ForgeKit> => {
  const gh = await FakeGitHub.start();
  const base = '/repos/acme/gitops/pulls';
  const paths = { create: ['POST', base], update: ['PATCH', `${base}/1`], list: ['GET', base] } as const;
  const at = (op: Op) => ({ method: paths[op][0], path: paths[op][1] });
  return {
    name: 'github',
    token: gh.token,
    account: gh.login,
    titleMax: 256,
    host: (o = {}) =>
      new GitHubHost({
        owner: 'acme',
        repo: 'gitops',
        base: 'main',
        cluster: 'prod',
        token: gh.token,
        baseUrl: gh.url,
        msPerSecond: o.msPerSecond ?? 1,
        maxRateLimitWaitSeconds: o.maxWaitSeconds,
        pacing: false,
        onWait: (w) => o.waits?.push(w.seconds),
      }),
    pulls: () => gh.pulls.map((p) => ({ ...p, state: p.merged ? 'merged' : p.state, labels: [...p.labels] })),
    addPull: (head, { fork, ...p } = {}) =>
      gh.addPull({ head, ...p, ...(fork ? { headRepo: 'someone/gitops' } : {}) }).number,
    setState: (n, state) =>
      Object.assign(
        gh.pulls.find((p) => p.number === n)!,
        {
          state: state === 'merged' ? 'closed' : state,
          merged: state === 'merged',
        },
      ),
    comments: (n) => (gh.comments.get(n) ?? []).map((c) => ({ body: c.body, author: c.user.login })),
    addComment: (n, body, login) => void gh.addComment(n, body, { login, type: 'User' }),
    forbidLabels: () => void (gh.labels = 'forbidden'),
    statuses: (op) =>
      gh.requests.filter((r) => r.method === at(op).method && r.path === at(op).path).map((r) => r.status),
    writes: () => gh.writes().length,
    scriptTooManyRequests: (op, s) => gh.script(tooManyRequests(at(op).method, at(op).path, s)),
    scriptRateLimitUntil: (op, epoch) => gh.script(primaryRateLimit(at(op).method, at(op).path, epoch)),
    scriptPermissionDenied: (op) => gh.script(permissionDenied(at(op).method, at(op).path)),
    scriptBadGateway: (op) => gh.script({ ...at(op), status: 502, body: { message: 'Server Error' } }),
    scriptRacingCreate: (head) =>
      gh.script({ ...at('create'), before: (g) => void g.addPull({ head, title: 'old', body: 'old' }) }),
    verify: () => gh.verify(),
    reset: () => gh.reset(),
    close: () => gh.close(),
  };
};

/** The part of a kit the two new stand-ins share. */
function standInKit(
  s: HostStandIn,
  paths: Record<Op, { method: string; path: string }>,
  rest: Pick<ForgeKit, 'name' | 'titleMax' | 'host'>,
): ForgeKit {
  const at = (op: Op) => paths[op];
  const find = (n: number): StandInPull => s.pulls.find((p) => p.number === n)!;
  return {
    ...rest,
    token: s.token,
    account: s.username,
    pulls: () => s.pulls.map((p) => ({ ...p, labels: [...p.labels] })),
    addPull: (head, p = {}) => s.addPull({ head, ...p }).number,
    setState: (n, state) => void (find(n).state = state),
    comments: (n) => (s.comments.get(n) ?? []).map((c) => ({ body: c.body, author: c.author })),
    addComment: (n, body, author) => void s.addComment(n, body, author),
    forbidLabels: () => void (s.labelMode = 'forbidden'),
    statuses: (op) =>
      s.requests.filter((r) => r.method === at(op).method && r.path === at(op).path).map((r) => r.status),
    writes: () => s.writes().length,
    scriptTooManyRequests: (op, seconds) =>
      s.script({
        ...at(op),
        status: 429,
        headers: { 'retry-after': String(seconds) },
        body: { message: 'Too Many Requests' },
      }),
    scriptRateLimitUntil: (op, epoch) =>
      s.script({
        ...at(op),
        status: 429,
        headers:
          rest.name === 'gitlab'
            ? { 'ratelimit-limit': '600', 'ratelimit-remaining': '0', 'ratelimit-reset': String(epoch) }
            : { 'retry-after': new Date(epoch * 1000).toUTCString() },
        body: { message: 'This endpoint has been requested too many times. Try again later.' },
      }),
    scriptPermissionDenied: (op) =>
      s.script({
        ...at(op),
        status: 403,
        body: {
          message:
            rest.name === 'gitlab'
              ? '403 Forbidden'
              : 'user should have permission to write to target branch',
        },
      }),
    scriptBadGateway: (op) => s.script({ ...at(op), status: 502, body: { message: 'Bad Gateway' } }),
    scriptRacingCreate: (head) =>
      s.script({ ...at('create'), before: () => void s.addPull({ head, title: 'old', body: 'old' }) }),
    verify: () => s.verify(),
    reset: () => s.reset(),
    close: () => s.close(),
  };
}

const gitlabKit = async (): Promise<ForgeKit> => {
  const s = await GitLabStandIn.start();
  const base = '/api/v4/projects/acme%2Fgitops/merge_requests';
  return standInKit(
    s,
    {
      create: { method: 'POST', path: base },
      update: { method: 'PUT', path: `${base}/1` },
      list: { method: 'GET', path: base },
    },
    {
      name: 'gitlab',
      titleMax: 255,
      host: (o = {}) =>
        new GitLabHost({
          url: s.url,
          project: 'acme/gitops',
          base: 'main',
          cluster: 'prod',
          token: s.token,
          msPerSecond: o.msPerSecond ?? 1,
          maxRateLimitWaitSeconds: o.maxWaitSeconds,
          onWait: (w) => o.waits?.push(w.seconds),
        }),
    },
  );
};

const giteaKit = async (): Promise<ForgeKit> => {
  const s = await GiteaStandIn.start();
  const base = '/api/v1/repos/acme/gitops/pulls';
  return standInKit(
    s,
    {
      create: { method: 'POST', path: base },
      update: { method: 'PATCH', path: `${base}/1` },
      list: { method: 'GET', path: base },
    },
    {
      name: 'gitea',
      titleMax: 255,
      host: (o = {}) =>
        new GiteaHost({
          url: s.url,
          owner: 'acme',
          repo: 'gitops',
          base: 'main',
          cluster: 'prod',
          token: s.token,
          msPerSecond: o.msPerSecond ?? 1,
          maxRateLimitWaitSeconds: o.maxWaitSeconds,
          onWait: (w) => o.waits?.push(w.seconds),
        }),
    },
  );
};

/** Every host's kit, by name. */
export const FORGE_KITS: Record<ForgeKit['name'], () => Promise<ForgeKit>> = {
  github: githubKit,
  gitlab: gitlabKit,
  gitea: giteaKit,
};
