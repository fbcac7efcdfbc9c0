/**
 * The page AMD's device-metrics-exporter serves at `:5000/metrics` for the GPUs of one node, as
 * the simulator renders it: `gpu_gfx_activity` (graphics engine usage, percent 0..100) and
 * `gpu_used_vram` / `gpu_total_vram` (MB), labelled as that exporter labels them (`gpu_id`,
 * `gpu_uuid`, `hostname` = the node's name, `card_series`, `pod`, `namespace`, `container`, empty
 * on a GPU no container holds). Names from `AMD` of `src/util/vocabulary.ts`.
 */
import { AMD, nodeVendor } from '../../util/index.js';
import type { KubeObject } from '../types.js';
import { formatDcgmPage, type DcgmGpu } from './page.js';

const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** VRAM of one MI300X (MB), as `gpu_total_vram` reports it. */
const MI300X_VRAM_MB = 196_592;

const FIELDS: { name: string; help: string; value: (g: DcgmGpu) => string }[] = [
  {
    name: AMD.utilisation.metric,
    help: 'Graphics engine usage percentage (0 - 100)',
    value: (g) => String(Math.round(g.utilization)),
  },
  {
    name: 'gpu_used_vram',
    help: 'Total VRAM memory used in MB',
    value: (g) =>
      String(g.utilization > 0 ? Math.round(MI300X_VRAM_MB * (0.2 + (0.6 * g.utilization) / 100)) : 0),
  },
  { name: 'gpu_total_vram', help: 'Total VRAM available in MB', value: () => String(MI300X_VRAM_MB) },
];

/** The AMD exporter page text for GPUs of node `node` (ends with a newline; empty for none). */
export function formatAmdPage(node: string, gpus: readonly DcgmGpu[]): string {
  if (gpus.length === 0) return '';
  const l = AMD.utilisation.labels;
  const labels = gpus.map(
    (g) =>
      `card_series="AMD Instinct MI300X OAM",card_vendor="AMD",${l.gpu}="${g.gpu}",${l.uuid}="${g.uuid}",${l.hostname}="${esc(node)}",${l.container}="${esc(g.container)}",${l.namespace}="${esc(g.namespace)}",${l.pod}="${esc(g.pod)}"`,
  );
  const lines: string[] = [];
  for (const f of FIELDS) {
    lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} gauge`);
    gpus.forEach((g, i) => lines.push(`${f.name}{${labels[i]}} ${f.value(g)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** The exporter page of a node: AMD's for a node of AMD GPUs, dcgm-exporter's otherwise. */
export function formatExporterPage(node: KubeObject, gpus: DcgmGpu[]): string {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  const resources = Object.keys((node.status?.capacity as Record<string, unknown> | undefined) ?? {});
  const vendor = nodeVendor(labels, resources);
  return vendor === AMD ? formatAmdPage(node.metadata.name, gpus) : formatDcgmPage(gpus);
}
