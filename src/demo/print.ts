/**
 * The demo's human output: one line per event as it happens (progress lines are rewritten in
 * place on a terminal and thinned out elsewhere), then a summary of the final state and where to
 * look. Pure formatting over a writable; no clock except for thinning progress lines.
 */
import path from 'node:path';
import type { DemoEvent } from './events.js';
import type { DemoResult } from './scenario.js';

/** Where the printer writes (`process.stdout`, or a buffer in tests). */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Real milliseconds between two printed updates of one wait when not on a terminal. */
const PROGRESS_EVERY_MS = 1000;
const STEPS = 4;

/**
 * Returns a listener that prints events to `out`. On a terminal the progress of a wait is one
 * line rewritten in place; elsewhere (a log, a CI job) an update is printed at most once a second
 * per wait, and its last one always.
 */
export function createPrinter(out: Output, now: () => number = Date.now): (e: DemoEvent) => void {
  const tty = out.isTTY === true;
  let live = false; // a progress line is on screen, without its newline
  const lastShown = new Map<string, number>();
  const clearLive = () => {
    if (live) out.write('\r\x1b[2K');
    live = false;
  };
  return (e) => {
    if (e.kind === 'progress') {
      if (tty) {
        clearLive();
        if (e.done) out.write(`  ✓ ${e.text}\n`);
        else {
          out.write(`  … ${e.text}`);
          live = true;
        }
        return;
      }
      const t = now();
      const last = lastShown.get(e.key);
      if (!e.done && last !== undefined && t - last < PROGRESS_EVERY_MS) return;
      lastShown.set(e.key, t);
      out.write(`  ${e.done ? '✓' : '…'} ${e.text}\n`);
      return;
    }
    clearLive();
    if (e.kind === 'step') {
      const head = e.step === 0 ? e.title : `Step ${e.step} of ${STEPS} · ${e.title}`;
      out.write(`\n▸ ${head}\n  ${e.detail}\n`);
    } else if (e.kind === 'problem') {
      out.write(`  ✗ ${e.text}\n`);
    } else {
      out.write(`  • ${e.text}\n`);
    }
  };
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const POOL_ORDER = ['test', 'short-task', 'long-task', 'unused'];

/**
 * The requests part of the summary: with GitLab the merge requests (`!iid`, state, branch, link,
 * title), else the pull requests (branches) gpuops recorded; a heading, the table, a blank line.
 */
function requestsTable(r: DemoResult): string[] {
  if (r.provider === 'gitlab') {
    const rows: string[][] = [['MR', 'STATE', 'BRANCH', 'LINK', 'TITLE']];
    for (const m of r.mergeRequests) rows.push([`!${m.iid}`, m.state, m.branch, m.url, m.title]);
    return [
      "Merge requests (on the demo's GitLab stand-in, merged by the demo as a reviewer would)",
      table(rows),
      '',
    ];
  }
  const rows: string[][] = [['STATE', 'KIND', 'BRANCH', 'TITLE']];
  for (const p of r.prs) rows.push([p.state, p.kind, p.branch, p.title]);
  return [
    'Pull requests (branches on the local origin, merged by the demo as a reviewer would)',
    table(rows),
    '',
  ];
}

/** The GPU nodes by pool (a node moved in from unused, or returned to it, says so), then those in no pool. */
function poolsTable(r: DemoResult, where: string): string[] {
  const moved = new Map(r.movedNodes.map((m) => [m.node, m]));
  const gpuNodes = r.nodes.filter((n) => n.gpuProduct !== null);
  const poolRows: string[][] = [['POOL', 'NODES', 'GPUS', 'NODE NAMES']];
  for (const pool of POOL_ORDER) {
    const nodes = gpuNodes.filter((n) => n.pool === pool);
    const returned = new Set(r.returnedNodes);
    const names = nodes.map((n) =>
      returned.has(n.name) && pool === 'unused'
        ? `${n.name} (returned after it stayed empty)`
        : moved.has(n.name)
          ? `${n.name} (moved in from unused)`
          : n.name,
    );
    poolRows.push([
      pool,
      String(nodes.length),
      String(nodes.reduce((s, n) => s + n.gpus, 0)),
      names.join(', ') || '—',
    ]);
  }
  const outside = gpuNodes.filter((n) => n.pool === null);
  poolRows.push(['(no pool)', String(outside.length), '', outside.map((n) => n.name).join(', ')]);
  return [`GPU node pools (labels in ${where})`, table(poolRows), ''];
}

/** Each algorithm's pool, benchmark, replicas and utilisation; the first error of each invalid spec. */
function algorithmsTable(r: DemoResult, where: string): string[] {
  const algRows: string[][] = [
    ['ALGORITHM', 'POOL', 'BENCHMARK', 'REPLICAS', 'READY', 'UTILISATION', 'LAST DECISION', 'NODES'],
  ];
  for (const a of r.algorithms) {
    algRows.push([
      a.name,
      a.pool ?? '—',
      a.benchmarkSeconds === null ? '—' : `${a.benchmarkSeconds} s`,
      a.replicasInGit === null ? '—' : String(a.replicasInGit),
      String(a.readyPods),
      a.utilization === null ? 'no data' : `${a.utilization} %`,
      a.lastDecision ?? '—',
      a.podNodes.join(', ') || '—',
    ]);
  }
  const invalid = new Map<string, string>();
  for (const e of r.specErrors) {
    if (!invalid.has(e.file)) invalid.set(e.file, `${e.file}:${e.line}:${e.column} ${e.field}: ${e.message}`);
  }
  return [
    `Algorithms (replicas as in Git; ready pods in ${where})`,
    table(algRows),
    ...[...invalid.values()].map((first) => `not placed, invalid spec: ${first}`),
    '',
  ];
}

/** The summary printed at the end: pools, algorithms, pull requests, and where to look. */
export function formatSummary(r: DemoResult): string {
  const lines: string[] = [];
  const seconds = (r.elapsedMs / 1000).toFixed(1);
  const statusPage = path.join(path.dirname(r.logFile), 'status.html');
  const where = r.real ? 'the cluster' : 'the simulated cluster';
  lines.push(
    '',
    // Simulated time runs at its own pace (faster between waits): say both, claim no speed-up.
    `Done: the four steps in ${r.passes} reconcile passes: ${Math.round(r.simulatedSeconds).toLocaleString('en-US')} ${r.real ? 'story' : 'simulated'} seconds in ${seconds} s.`,
    '',
  );

  lines.push(...poolsTable(r, where), ...algorithmsTable(r, where));

  if (r.services.length > 0) {
    const svcRows: string[][] = [['SERVICE', 'PORTS', 'ENDPOINTS']];
    for (const s of r.services)
      svcRows.push([`${s.namespace}/${s.name}`, s.ports.join(', '), `${s.readyPods} ready`]);
    lines.push(
      'Services (written by gpuops for algorithms whose container declares ports)',
      table(svcRows),
      '',
    );
  }

  lines.push(...requestsTable(r));

  lines.push(
    `Look around (${where} has stopped; the repo and the database stay):`,
    `  git -C ${r.origin} log --all --oneline --graph`,
    `  git -C ${r.origin} ls-tree -r --name-only main clusters/${r.cluster}/`,
    `  npm run gpuops -- prs --all --cluster ${r.cluster} --database ${r.database}   # every pull request; prs show ID for one`,
    `  npm run gpuops -- status --cluster ${r.cluster} --database ${r.database}`,
    `  less ${r.logFile}        # gpuops's JSON log`,
    '',
    'Open the status page (pools, algorithms with 24 h utilisation charts, pull requests, decisions):',
    `  npm run --silent gpuops -- status --cluster ${r.cluster} --database ${r.database} --output html > ${statusPage} && xdg-open ${statusPage}`,
    '',
  );
  return lines.join('\n');
}
