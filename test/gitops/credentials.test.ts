/**
 * A credential inside `--repo-url` never reaches the disk or the process list (issue 13 item 8).
 * The remote is real smart HTTP: `git http-backend` behind a loopback node server that demands
 * the credential as Basic auth, so a clone and a push only work when it is sent, and the test can
 * then search every file gpuops wrote, git's argv (through a `git` wrapper first on PATH) and the
 * log lines for it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { GitOpsError } from '../../src/working-copy/git-errors.js';
import { openGitOps } from '../../src/compose/git.js';
import { writeBack } from '../../src/write-back/write-back.js';
import { openStore } from '../../src/store/index.js';
import { makeRemote, remoteFile, remoteRef, type TempRepo } from './helpers.js';

const USER = 'gpuops-bot';
const SECRET = 's3cr3t-T0KEN-7f2a9c';
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Smart HTTP over loopback: `git http-backend` as CGI, behind Basic auth for USER:SECRET. */
async function serveGit(repo: TempRepo): Promise<{ url: string; server: Server }> {
  const expected = `Basic ${Buffer.from(`${USER}:${SECRET}`).toString('base64')}`;
  const server = createServer((req, res) => {
    if ((req.headers.authorization ?? '').toLowerCase() !== expected.toLowerCase()) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const u = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn(REAL_GIT, ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: repo.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: USER,
        REMOTE_ADDR: '127.0.0.1',
        REQUEST_METHOD: req.method,
        PATH_INFO: decodeURIComponent(u.pathname),
        QUERY_STRING: u.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      const end = out.indexOf('\r\n\r\n');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of out.subarray(0, end).toString().split('\r\n')) {
        const [k, ...v] = line.split(': ');
        if (k!.toLowerCase() === 'status') status = Number(v.join(': ').split(' ')[0]);
        else headers[k!] = v.join(': ');
      }
      res.writeHead(status, headers).end(out.subarray(end + 4));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/remote.git`, server };
}

/** Puts a `git` first on PATH that appends its argv to a file, then runs the real git. */
function recordArgv(dir: string): string {
  const bin = join(dir, 'bin');
  const log = join(dir, 'argv.log');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${REAL_GIT}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  writeFileSync(log, '');
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  cleanups.push(() => void (process.env.PATH = path));
  return log;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile());
}

const FORMS = [
  SECRET,
  Buffer.from(`${USER}:${SECRET}`).toString('base64'),
  Buffer.from(`x-access-token:${SECRET}`).toString('base64'),
  encodeURIComponent(SECRET),
];

describe('a credential in --repo-url', () => {
  it('clones and pushes over HTTP with it, and no file, argv, log line or record holds it', async () => {
    const repo = makeRemote();
    cleanups.push(() => repo.cleanup());
    const { url } = await serveGit(repo);
    const argvLog = recordArgv(repo.root);
    const withCredential = url.replace('http://', `http://${USER}:${SECRET}@`);
    const cacheDir = join(repo.root, 'cache');
    const store = await openStore(`sqlite:${join(repo.root, 'db', 'state.db')}`);
    cleanups.push(() => store.close());
    const lines: string[] = [];
    const log = {
      info: (o: Record<string, unknown>, m: string) => void lines.push(JSON.stringify(o) + m),
      warn: (o: Record<string, unknown>, m: string) => void lines.push(JSON.stringify(o) + m),
    };
    const now = () => new Date('2026-11-30T12:00:00Z');
    const { workingCopy, host } = await openGitOps(
      {
        repoUrl: withCredential,
        branch: 'main',
        cluster: 'prod',
        provider: 'git',
        githubApiUrl: 'https://api.github.com',
        githubRepo: undefined,
        githubToken: undefined,
      },
      { store, now, cacheDir, log },
    );
    const cs = buildChangeSet({
      cluster: 'prod',
      kind: 'placement',
      subject: 'resnet50-infer',
      files: [{ path: 'clusters/prod/algorithms/resnet50-infer/deployment.yaml', content: 'replicas: 2\n' }],
      placements: [],
    })!;
    const [r] = await writeBack([cs], {
      workingCopy,
      host,
      store,
      cluster: 'prod',
      mode: 'pull-request',
      dryRun: false,
      limits: { maxOpenedPerPass: 5, maxOpen: 10 },
      now,
      log,
    });
    expect(r).toMatchObject({ action: 'created' });
    // It really went through the authenticated HTTP remote.
    expect(remoteRef(repo, cs.branch)).toBe(r!.commit);
    expect(remoteFile(repo, cs.branch, cs.files[0]!.path)).toBe('replicas: 2\n');
    expect(workingCopy.displayUrl).toBe(url);

    const written = [...filesUnder(cacheDir), ...filesUnder(join(repo.root, 'db'))];
    const config = written.find((p) => p.endsWith(join('.git', 'config')))!;
    expect(readFileSync(config, 'utf8')).toContain(`url = ${url}\n`);
    const argv = readFileSync(argvLog, 'utf8');
    expect(argv).toContain(`clone -q --no-tags --no-checkout -- ${url}`);
    expect(argv).toMatch(/ push --porcelain .*origin /);
    expect(lines.length).toBeGreaterThan(0);
    for (const form of FORMS) {
      for (const file of written)
        expect(readFileSync(file).includes(form), `${file} holds ${form}`).toBe(false);
      expect(argv.includes(form), `argv holds ${form}`).toBe(false);
      expect(lines.join('\n').includes(form), `log holds ${form}`).toBe(false);
    }
  });

  it('a wrong credential fails as auth, and the error never shows it', async () => {
    const repo = makeRemote();
    cleanups.push(() => repo.cleanup());
    const { url } = await serveGit(repo);
    const wrong = 'wr0ng-T0KEN-b41d';
    const err = await openGitOps(
      {
        repoUrl: url.replace('http://', `http://${USER}:${wrong}@`),
        branch: 'main',
        cluster: 'prod',
        provider: 'git',
        githubApiUrl: 'https://api.github.com',
        githubRepo: undefined,
        githubToken: undefined,
      },
      {
        store: {
          pullRequests: async () => [],
          pullRequest: async () => null,
          upsertPullRequest: async () => undefined,
        },
        now: () => new Date(),
        cacheDir: join(repo.root, 'cache'),
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitOpsError);
    expect((err as GitOpsError).kind).toBe('auth');
    expect((err as GitOpsError).message).not.toContain(wrong);
    expect((err as GitOpsError).message).not.toContain(Buffer.from(`${USER}:${wrong}`).toString('base64'));
  });
});
