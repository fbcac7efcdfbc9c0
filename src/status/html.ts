/**
 * The status page as one server-rendered HTML document (pure): inline CSS and SVG, no script, no
 * external resource, so it reads the same with JavaScript off and behind an air gap. Links to
 * pull requests are the only links out.
 */
import { escapeHtml as e } from './escape.js';
import type { StatusAlgorithm, StatusView } from './model.js';
import { renderChart } from './svg-chart.js';

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.4em 0}th,td{text-align:left;padding:2px 10px 2px 0;vertical-align:top}
th{color:#555;font-weight:600}.muted{color:#777}.pool{display:inline-block;vertical-align:top;margin:0 2em 1em 0}
.alg{margin:1em 0 1.5em}.alg h3{margin:.2em 0;font-size:1em}code{font-size:.95em}`;

function table(head: string[], rows: string[][]): string {
  return `<table><thead><tr>${head.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
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
      ? 'not benchmarked yet'
      : a.thresholdSeconds === null
        ? `run time ${seconds(a.runTimeSeconds)}`
        : `run time ${seconds(a.runTimeSeconds)} ${a.side === 'above' ? '&gt;' : '≤'} threshold ${seconds(a.thresholdSeconds)}`;
  const replicas =
    a.replicas === null
      ? 'no Deployment yet'
      : `${a.replicas} replicas (min ${a.minReplicas}, max ${a.maxReplicas})`;
  const band = a.chart.bandMin === null ? '' : `, band ${a.chart.bandMin}–${a.chart.bandMax} %`;
  return `<div class="alg" id="alg-${e(a.name)}"><h3>${e(a.name)} <span class="muted">· ${e(a.pool ?? 'no pool')}</span></h3>
<div>${runVsThreshold} · ${e(replicas)}${e(band)}</div>
${a.scalingReason ? `<div class="muted">${e(a.scalingReason)}: ${e(a.scalingMessage ?? '')}</div>` : ''}
${renderChart(a.chart, `GPU utilisation of ${a.name} over the last 24 h`)}</div>`;
}

/** Renders the whole page. */
export function renderStatusHtml(v: StatusView): string {
  const pools = v.pools
    .map(
      (p) =>
        `<div class="pool"><h3>${e(p.pool)} <span class="muted">${p.nodes.length} nodes, ${p.freeGpus}/${p.allocatableGpus} GPUs free</span></h3>${
          p.nodes.length === 0
            ? empty('no nodes')
            : table(
                ['node', 'GPU', 'free/allocatable', 'note'],
                p.nodes.map((n) => [
                  e(n.name),
                  e(n.gpuProduct ?? '—'),
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
  const leftOut =
    v.leftOut.length === 0
      ? empty('Every GPU node is in a pool.')
      : table(
          ['node', 'GPU', 'reason', 'why'],
          v.leftOut.map((n) => [
            e(n.name),
            e(n.gpuProduct ?? '—'),
            `<code>${e(n.reason)}</code>`,
            e(n.message),
          ]),
        );
  const benchmarks =
    v.benchmarks.length === 0
      ? empty('No benchmark is running.')
      : table(
          ['algorithm', 'pod', 'node', 'phase', 'started'],
          v.benchmarks.map((b) => [e(b.algorithm), e(b.pod), e(b.node ?? '—'), e(b.phase), e(b.startedAt)]),
        );
  const prs =
    v.openPullRequests.length === 0
      ? empty('No open pull requests.')
      : table(
          ['pull request', 'kind', 'subject', 'title', 'updated (UTC)'],
          v.openPullRequests.map((p) => {
            const label = p.number === null ? e(p.branch) : `#${p.number}`;
            return [
              p.url ? `<a href="${e(p.url)}">${label}</a>` : label,
              e(p.kind),
              e(p.subject),
              e(p.title),
              e(p.updatedAt),
            ];
          }),
        );
  const decisions =
    v.decisions.length === 0
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
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>gpuops · ${e(v.cluster)}</title><style>${CSS}</style></head>
<body>
<h1>gpuops · cluster ${e(v.cluster)}</h1>
<p class="muted">Read from the database at ${e(v.generatedAt)}. Snapshot ${e(v.snapshotAt ?? 'none yet')}; last pass ${e(v.passAt ?? 'none yet')}. Times are UTC.</p>
<section id="pools"><h2>Pools</h2>${v.snapshotAt === null ? empty('No snapshot stored yet: gpuops has not completed a pass against this database.') : pools}
<h3>GPU nodes in no pool</h3>${leftOut}${v.nodesWithoutGpu > 0 ? empty(`${v.nodesWithoutGpu} nodes without GPUs are not listed.`) : ''}</section>
<section id="algorithms"><h2>Algorithms</h2>${v.algorithms.length === 0 ? empty('No algorithms recorded yet.') : v.algorithms.map(algorithm).join('')}</section>
<section id="benchmarks"><h2>Benchmarks in flight</h2>${benchmarks}</section>
<section id="pull-requests"><h2>Open pull requests</h2>${prs}</section>
<section id="decisions"><h2>Last decisions</h2>${decisions}</section>
</body></html>
`;
}
