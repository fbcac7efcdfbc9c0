/**
 * The status page as one server-rendered HTML document (pure): inline CSS and SVG, no script, no
 * external resource, so it reads the same with JavaScript off and behind an air gap. Links to
 * pull requests are the only links out.
 */
import { pullRequestRef } from '../change-sets/index.js';
import { NO_CACHE } from './cache-health.js';
import { escapeHtml as e } from './escape.js';
import { plural, type HealthSummary } from './health.js';
import type { StatusAlgorithm, StatusView } from './model.js';
import { renderChart } from './svg-chart.js';
import { statusTimes } from './times.js';
import { notPlaced } from './text.js';

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.4em 0}th,td{text-align:left;padding:2px 10px 2px 0;vertical-align:top}
th{color:#555;font-weight:600}.muted{color:#777}.pool{display:inline-block;vertical-align:top;margin:0 2em 1em 0;max-width:100%}
.scroll{overflow-x:auto;max-width:100%}.name{white-space:nowrap}
.alg{margin:1em 0 1.5em}.alg h3{margin:.2em 0;font-size:1em}code{font-size:.95em}
.chart{max-width:100%;height:auto}
.health{padding:.5em .8em;border-radius:4px;border:2px solid;font-size:1.05em;margin:.6em 0 1em}
.health .symbol{font-weight:700;margin-right:.3em}
.health-ok{background:#e5f5e0;border-color:#31a354}.health-warning{background:#fff3cd;border-color:#d98c00}
.health-critical{background:#fde0dd;border-color:#c51b1b}
.legend{list-style:none;padding:0;margin:.2em 0;font-size:.85em;color:#444;display:flex;flex-wrap:wrap;gap:.3em 1.2em}
.legend li{white-space:nowrap}.key{display:inline-block;width:14px;height:10px;margin-right:.35em;vertical-align:-1px}
.key.band{background:#d8f0d8}.key.envelope{background:#9ecae1;opacity:.8}.key.mean{height:0;border-top:2px solid #08519c;vertical-align:3px}
.key.marker{width:0;height:12px;margin:0 .5em 0 .3em;border-left:2px dashed}
.key.up{border-color:#31a354}.key.down{border-color:#e6550d}.key.relabel{border-color:#756bb1}`;

/** The symbol beside the word: the line reads the same without colour. */
const SYMBOL = { ok: '✔', warning: '⚠', critical: '✖' } as const;

/** The summary line at the top of the page (`role="status"`). */
function healthLine(h: HealthSummary): string {
  return `<p id="health" class="health health-${h.level}" role="status" data-level="${h.level}"><span class="symbol" aria-hidden="true">${SYMBOL[h.level]}</span><strong>${e(h.word)}</strong>: ${e(h.line.slice(h.word.length + 2))}</p>`;
}

/** The legend under a chart: what each colour and line means. */
function legend(a: StatusAlgorithm): string {
  const band =
    a.chart.bandMin === null ? 'scaling band' : `scaling band ${a.chart.bandMin}–${a.chart.bandMax} %`;
  return `<ul class="legend" aria-label="legend">
<li><span class="key band"></span>${e(band)}</li><li><span class="key envelope"></span>min–max over pods</li>
<li><span class="key mean"></span>mean</li><li><span class="key marker up"></span>scale-up</li>
<li><span class="key marker down"></span>scale-down</li><li><span class="key marker relabel"></span>node moved into the pool</li></ul>`;
}

function table(head: string[], rows: string[][]): string {
  return `<div class="scroll"><table><thead><tr>${head.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}

/** A node name cell: never broken inside the name. */
function name(n: string): string {
  return `<span class="name">${e(n)}</span>`;
}

function empty(text: string): string {
  return `<p class="muted">${e(text)}</p>`;
}

function seconds(s: number | null): string {
  return s === null ? '—' : `${Math.round(s * 10) / 10} s`;
}

function algorithm(a: StatusAlgorithm): string {
  const runVsThreshold =
    a.runTimeSeconds === null
      ? e(notPlaced(a))
      : a.thresholdSeconds === null
        ? `run time ${seconds(a.runTimeSeconds)}`
        : `run time ${seconds(a.runTimeSeconds)} ${a.side === 'above' ? '&gt;' : '≤'} threshold ${seconds(a.thresholdSeconds)}`;
  const replicas =
    a.replicas === null
      ? 'no Deployment yet'
      : `${plural(a.replicas, 'replica')} (min ${a.minReplicas}, max ${a.maxReplicas})`;
  const band = a.chart.bandMin === null ? '' : `, band ${a.chart.bandMin}–${a.chart.bandMax} %`;
  return `<div class="alg" id="alg-${e(a.name)}"><h3>${e(a.name)} <span class="muted">· ${e(a.pool ?? 'no pool')}</span></h3>
<div>${runVsThreshold} · ${e(replicas)}${e(band)}</div>
${a.held ? `<div><strong>${e(a.held.reason)}</strong>: ${e(a.held.message)}</div>` : ''}
${a.scalingReason ? `<div class="muted">${e(a.scalingReason)}: ${e(a.scalingMessage ?? '')}</div>` : ''}
${renderChart(a.chart, `GPU utilisation of ${a.name}`)}${legend(a)}</div>`;
}

function poolsSection(v: StatusView): string {
  return v.pools
    .map(
      (p) =>
        `<div class="pool"><h3>${e(p.pool)} <span class="muted">${plural(p.nodes.length, 'node')}, ${p.freeGpus}/${plural(p.allocatableGpus, 'GPU')} free</span></h3>${
          p.nodes.length === 0
            ? empty('no nodes')
            : table(
                ['node', 'GPU', 'free/allocatable', 'note'],
                p.nodes.map((n) => [
                  name(n.name),
                  name(n.gpuProduct ?? '—'),
                  `${n.freeGpus}/${n.allocatableGpus}`,
                  e(
                    [
                      n.condition,
                      n.labelPending ? `label not applied yet (cluster: ${n.labelPending})` : null,
                    ]
                      .filter(Boolean)
                      .join('; '),
                  ),
                ]),
              )
        }</div>`,
    )
    .join('');
}

function leftOutTable(v: StatusView): string {
  return v.leftOut.length === 0
    ? empty('Every GPU node is in a pool.')
    : table(
        ['node', 'GPU', 'reason', 'why'],
        v.leftOut.map((n) => [
          name(n.name),
          name(n.gpuProduct ?? '—'),
          `<code>${e(n.reason)}</code>`,
          e(n.message),
        ]),
      );
}

function benchmarksTable(v: StatusView): string {
  return v.benchmarks.length === 0
    ? empty('No benchmark is running.')
    : table(
        ['algorithm', 'pod', 'node', 'phase', 'started'],
        v.benchmarks.map((b) => [e(b.algorithm), e(b.pod), name(b.node ?? '—'), e(b.phase), e(b.startedAt)]),
      );
}

function pullRequestsTable(v: StatusView): string {
  return v.openPullRequests.length === 0
    ? empty('No open pull requests.')
    : table(
        ['pull request', 'kind', 'subject', 'title', 'updated (UTC)'],
        v.openPullRequests.map((p) => {
          const label = p.number === null ? e(p.branch) : pullRequestRef(p);
          return [
            p.url ? `<a href="${e(p.url)}">${label}</a>` : label,
            e(p.kind),
            e(p.subject),
            e(p.title),
            e(p.updatedAt),
          ];
        }),
      );
}

function decisionsTable(v: StatusView): string {
  return v.decisions.length === 0
    ? empty('No decisions recorded yet.')
    : table(
        ['time (UTC)', 'subject', 'action', 'reason', 'message'],
        v.decisions.map((d) => [
          e(d.at),
          e(d.subject),
          e(d.action),
          `<code>${e(d.reason)}</code>`,
          e(d.message),
        ]),
      );
}

function cacheTable(v: StatusView): string {
  return v.cache === null
    ? empty(`${NO_CACHE.charAt(0).toUpperCase()}${NO_CACHE.slice(1)}.`)
    : v.cache.length === 0
      ? empty('The controller keeps no cluster cache.')
      : table(
          ['resource', 'synced', 'watch', 'last relist (UTC)', 'objects', 'events/s', 'why not synced'],
          v.cache.map((r) => [
            e(r.resource),
            r.synced ? 'yes' : '<strong>no</strong>',
            r.connected ? 'connected' : 'disconnected',
            e(r.lastRelistAt ?? 'never'),
            String(r.objects),
            String(r.eventsPerSecond),
            e(r.reason ?? ''),
          ]),
        );
}

/** The times under the title: read when, the snapshot's and pass's ages on one clock (`times.ts`). */
function timesLine(v: StatusView): string {
  const t = statusTimes(v);
  return (
    [`Read from the database: ${t.read}`, t.records, t.clock]
      .filter(Boolean)
      .map((x) => e(x!))
      .join('. ') + '.'
  );
}

/** Renders the whole page. */
export function renderStatusHtml(v: StatusView): string {
  const pools = poolsSection(v);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>gpuops · ${e(v.cluster)}</title><style>${CSS}</style></head>
<body>
<h1>gpuops · cluster ${e(v.cluster)}</h1>
${healthLine(v.health)}
<p class="muted">${timesLine(v)}</p>
<section id="pools"><h2>Pools</h2>${v.snapshotAt === null ? empty('No snapshot stored yet: gpuops has not completed a pass against this database.') : pools}
<h3>GPU nodes in no pool</h3>${leftOutTable(v)}${v.nodesWithoutGpu > 0 ? empty(`${plural(v.nodesWithoutGpu, 'node')} without GPUs ${v.nodesWithoutGpu === 1 ? 'is' : 'are'} not listed.`) : ''}</section>
<section id="algorithms"><h2>Algorithms</h2>${v.algorithms.length === 0 ? empty('No algorithms recorded yet.') : v.algorithms.map(algorithm).join('')}</section>
<section id="benchmarks"><h2>Benchmarks in flight</h2>${benchmarksTable(v)}</section>
<section id="pull-requests"><h2>Open pull requests</h2>${pullRequestsTable(v)}</section>
<section id="decisions"><h2>Last decisions</h2>${decisionsTable(v)}</section>
<section id="cluster-cache"><h2>Cluster cache</h2>${cacheTable(v)}</section>
</body></html>
`;
}
