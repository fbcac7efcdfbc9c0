/** Timestamps as the API server writes them: RFC 3339, UTC, whole seconds. */

/** `2026-11-29T05:10:00Z` for `date` (milliseconds dropped, as Kubernetes `metav1.Time`). */
export function k8sTime(date: Date | number): string {
  const ms = typeof date === 'number' ? date : date.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Milliseconds since the epoch of an RFC 3339 timestamp, or undefined when absent or invalid. */
export function parseTime(text: unknown): number | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
