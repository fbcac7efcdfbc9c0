/**
 * The lines of an exporter page (Prometheus text exposition format) that belong to some metric
 * families, so that the page parser reads only those: dcgm-exporter serves dozens of families per
 * GPU and a pass reads one (`DCGM_FI_DEV_GPU_UTIL`), so parsing the whole page costs many times
 * the lines it keeps.
 */

/** Stands for a dropped run of other families' lines: a family no caller asks for. */
const OTHER_FAMILY_LINE = 'gpuops_other_families 0';

/**
 * `text` with only the lines whose metric name is one of `names` (sample lines, with a histogram's
 * or summary's `_count`, `_sum` and `_bucket`, and `# HELP` / `# TYPE` lines), so that
 * `parse-prometheus-text-format` on it gives the same families of `names`, samples and errors of
 * their lines as on `text`:
 * - a dropped run of lines that name another metric becomes one line of a family named
 *   `gpuops_other_families`, so the families of `names` end where they ended (the parser starts
 *   a family at a line naming another metric and merges consecutive samples with equal labels);
 * - a dropped run of blank and comment lines is left out (the parser skips them);
 * - the last line is `text`'s own when kept, else empty (the parser closes the open family at
 *   the last line).
 * Lines of other families are not read, so their syntax errors are not found.
 */
export function familyLines(text: string, names: ReadonlySet<string>): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  let dropped = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const name = lineMetric(line);
    if (name === null) continue;
    if (names.has(name) || names.has(familyOf(name))) {
      if (dropped) kept.push(OTHER_FAMILY_LINE);
      dropped = false;
      kept.push(line);
    } else dropped = true;
  }
  const last = lines[lines.length - 1]!;
  if (kept.length === 0 || kept[kept.length - 1] !== last || dropped) kept.push('');
  return kept.join('\n');
}

/** A histogram's or summary's sample name without its `_count`, `_sum` or `_bucket`. */
function familyOf(name: string): string {
  const m = /_(count|sum|bucket)$/.exec(name);
  return m ? name.slice(0, m.index) : name;
}

/**
 * The metric a line names, as the parser reads it (trimmed; `# HELP` / `# TYPE`: the word after;
 * a sample: up to `{`, a space or a tab), or null for a blank or other comment line.
 */
function lineMetric(raw: string): string | null {
  const line = raw.trim();
  if (line.length === 0) return null;
  if (line.startsWith('# ')) {
    if (!line.startsWith('# HELP ') && !line.startsWith('# TYPE ')) return null;
    const rest = line.slice(7);
    const space = rest.indexOf(' ');
    return space < 0 ? rest : rest.slice(0, space);
  }
  let end = 0;
  while (end < line.length) {
    const c = line.charCodeAt(end);
    if (c === 123 /* { */ || c === 32 /* space */ || c === 9 /* tab */) break;
    end++;
  }
  return line.slice(0, end);
}
