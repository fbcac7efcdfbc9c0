/**
 * The floor of a reconcile pass (issue 14.2): the I/O a pass cannot avoid, timed in the pass
 * process beside the pass, with no gpuops code in between (but the kube client's `PageAgents`,
 * which only picks the HTTP agent, so both send a list's pages over one kept-alive connection):
 * - reads, concurrently as the pass does them: Nodes and live Pods listed page by page from the
 *   cluster (500 per page, each page decoded; none for a pass on the watch-driven cache, which
 *   lists nothing), one Prometheus answer fetched and decoded, and one `git fetch` of the base
 *   branch;
 * - writes (only when there are changes): the pass's own changed files as one commit per subject
 *   with plain git plumbing (a temporary index per branch: read-tree, hash-object,
 *   update-index, write-tree, commit-tree; all refs in one `update-ref --stdin`) and one
 *   `git push` of every branch, to `refs/floor/…` of the same remote (not a branch: the pass's
 *   next `ls-remote --heads` must not see the remote move).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import nodeFetch from 'node-fetch';
import type * as KubeClientModule from '../src/cluster/kube-client.js';

const run = promisify(execFile);

/** One subject's commit for the floor: its branch and files (content null deletes the file). */
export interface FloorChange {
  branch: string;
  message: string;
  files: { path: string; content: string | null }[];
}

/** Milliseconds of each part of the floor. */
export interface FloorTimes {
  /** Nodes and Pods listed, Prometheus answered, base fetched: all at once. */
  readMs: number;
  /** Commits of every change and the one push (0 without changes). */
  writeMs: number;
  totalMs: number;
  /** CPU time of this process over the floor (user + system, ms; git's own processes not included, as for the pass). */
  cpuMs: number;
  listPages: number;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'gpuops floor',
  GIT_AUTHOR_EMAIL: 'floor@example.com',
  GIT_COMMITTER_NAME: 'gpuops floor',
  GIT_COMMITTER_EMAIL: 'floor@example.com',
};

function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = GIT_ENV): Promise<string> {
  return run('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }).then((r) => r.stdout);
}

/** `git …` with `input` on stdin. */
function gitIn(
  cwd: string,
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv = GIT_ENV,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`git ${args.join(' ')}: ${code}: ${err}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * Where the controller's code is loaded from, as `reconcile-pass.ts` loads it: `GPUOPS_BENCH_CODE`
 * (the compiled `dist/`), else the sources (under tsx).
 */
const CODE = process.env.GPUOPS_BENCH_CODE ?? new URL('../src/', import.meta.url).href;

/**
 * Lists `apiPath` page by page (decoding each page, keeping only the count); returns the pages.
 * The pages go over one kept-alive connection ({@link PageAgents}), as the pass sends them, so
 * the floor does not count connection set-ups the pass does not make.
 */
async function listPages(kc: KubeConfig, apiPath: string, fieldSelector?: string): Promise<number> {
  const server = kc.getCurrentCluster()!.server;
  const { PageAgents } = (await import(
    new URL('cluster/kube-client.js', CODE).href
  )) as typeof KubeClientModule;
  const agents = new PageAgents();
  let cont: string | undefined;
  let pages = 0;
  try {
    do {
      const url = new URL(server + apiPath);
      url.searchParams.set('limit', '500');
      if (cont) url.searchParams.set('continue', cont);
      if (fieldSelector) url.searchParams.set('fieldSelector', fieldSelector);
      const init = await kc.applyToFetchOptions({ method: 'GET', headers: { Accept: 'application/json' } });
      init.agent = agents.pick(init.agent) as typeof init.agent;
      // node-fetch with the kubeconfig's credentials and the kept agent, as the Kubernetes adapter sends.
      const res = await nodeFetch(url.href, init);
      const list = JSON.parse(await res.text()) as { metadata?: { continue?: string } };
      cont = list.metadata?.continue || undefined;
      pages++;
    } while (cont);
  } finally {
    agents.close();
  }
  return pages;
}

/** A local clone the floor writes from (made once, untimed). */
export interface FloorRepo {
  dir: string;
  close(): void;
}

/** Clones `repoUrl` bare into a temp folder for the floor's plumbing. */
export async function openFloorRepo(repoUrl: string): Promise<FloorRepo> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-bench-floor-'));
  await git(dir, ['clone', '-q', '--bare', repoUrl, 'repo.git']);
  const repo = path.join(dir, 'repo.git');
  return { dir: repo, close: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One commit per change on the base, refs updated at once; returns the refspecs to push. */
async function commitAll(repo: string, base: string, changes: readonly FloorChange[]): Promise<string[]> {
  const commits = await Promise.all(
    changes.map(async (c, i) => {
      const env = { ...GIT_ENV, GIT_INDEX_FILE: path.join(repo, `floor-index-${i}`) };
      await git(repo, ['read-tree', base], env);
      const lines = await Promise.all(
        c.files.map(async (f) =>
          f.content === null
            ? `0 ${'0'.repeat(40)}\t${f.path}`
            : `100644 ${(await gitIn(repo, ['hash-object', '-w', '--stdin'], f.content)).trim()}\t${f.path}`,
        ),
      );
      await gitIn(repo, ['update-index', '--index-info'], `${lines.join('\n')}\n`, env);
      const tree = (await git(repo, ['write-tree'], env)).trim();
      const commit = (await git(repo, ['commit-tree', tree, '-p', base, '-m', c.message])).trim();
      // Outside refs/heads/: the pass's working copy never sees these refs (its `ls-remote --heads`
      // would find the remote moved and fetch on the next pass, a cost the floor itself caused).
      return { ref: `refs/floor/${c.branch}`, commit };
    }),
  );
  await gitIn(repo, ['update-ref', '--stdin'], commits.map((c) => `update ${c.ref} ${c.commit}\n`).join(''));
  return commits.map((c) => `+${c.ref}:${c.ref}`);
}

/**
 * Times the floor once (see the module comment).
 * @param changes the pass's change sets; none → reads only
 */
export async function measureFloor(opts: {
  kc: KubeConfig;
  podFieldSelector: string;
  /** List Nodes and Pods (a listing pass); false: a pass on the watch-driven cache lists nothing. Default true. */
  lists?: boolean;
  prometheusUrl: string;
  prometheusQuery: string;
  repo: FloorRepo;
  baseBranch: string;
  changes: readonly FloorChange[];
}): Promise<FloorTimes> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const [nodePages, podPages] = await Promise.all([
    opts.lists === false ? 0 : listPages(opts.kc, '/api/v1/nodes'),
    opts.lists === false ? 0 : listPages(opts.kc, '/api/v1/pods', opts.podFieldSelector),
    (async () => {
      const url = new URL('/api/v1/query', opts.prometheusUrl);
      url.searchParams.set('query', opts.prometheusQuery);
      JSON.parse(await (await fetch(url)).text());
    })(),
    git(opts.repo.dir, [
      'fetch',
      '-q',
      'origin',
      `+refs/heads/${opts.baseBranch}:refs/heads/${opts.baseBranch}`,
    ]),
  ]);
  const readMs = performance.now() - t0;
  const t1 = performance.now();
  if (opts.changes.length > 0) {
    const refspecs = await commitAll(opts.repo.dir, opts.baseBranch, opts.changes);
    await git(opts.repo.dir, ['push', '-q', 'origin', ...refspecs]);
  }
  const writeMs = performance.now() - t1;
  const totalMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    readMs,
    writeMs,
    totalMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    listPages: (nodePages as number) + (podPages as number),
  };
}
