/** Types for `parse-prometheus-text-format` (it ships none). Output mirrors prom2json. */
declare module 'parse-prometheus-text-format' {
  export interface ParsedSample {
    value?: string;
    labels?: Record<string, string>;
    timestamp_ms?: string;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface ParsedFamily {
    name: string;
    help: string;
    type: 'GAUGE' | 'COUNTER' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: ParsedSample[];
  }
  /** @throws Error `Encountered invalid line: …` on a malformed line. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
