/**
 * Deterministic names and hashes of the simulated controllers. The real controllers use random
 * suffixes (`generateName`); the simulator derives them from a hash so a scenario replays the same.
 */
import { byString } from '../../util/index.js';

/** Alphabet of Kubernetes' `rand.String` / `SafeEncodeString` (no vowels, no confusable digits). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * FNV-1a 32-bit hash of a string (UTF-16 code units), as an unsigned integer. `basis` varies the
 * offset basis to get independent hashes of one text.
 */
export function fnv32a(text: string, basis = 0x811c9dc5): number {
  let h = basis;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A 5-character suffix like the API server's `generateName` adds (`<job>-x7k2p`), derived from
 * `seed` instead of randomness (27^5 ≈ 14 million values from one 32-bit hash).
 */
export function nameSuffix(seed: string): string {
  let h = fnv32a(seed);
  let out = '';
  for (let i = 0; i < 5; i++) {
    out += ALPHANUMS[h % ALPHANUMS.length];
    h = Math.floor(h / ALPHANUMS.length);
  }
  return out;
}

/** JSON with object keys sorted at every level, so equal objects give equal text. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => byString(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

/**
 * The `pod-template-hash` of a pod template, computed as the Deployment controller does
 * (FNV-32a of the template, then `rand.SafeEncodeString` of its decimal digits), over a stable JSON
 * rendering instead of Go's object dump. Equal templates give equal hashes.
 */
export function podTemplateHash(template: unknown): string {
  const digits = String(fnv32a(stableJson(template ?? {})));
  let out = '';
  for (let i = 0; i < digits.length; i++) out += ALPHANUMS[digits.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

/** A fake but stable container ID (`containerd://` + 64 hex digits) for a container of a pod. */
export function containerId(podUid: string, container: string): string {
  let hex = '';
  for (let i = 0; hex.length < 64; i++)
    hex += fnv32a(`${podUid}/${container}/${i}`).toString(16).padStart(8, '0');
  return `containerd://${hex.slice(0, 64)}`;
}

/** A stable pod IP in 10.0.0.0/8 derived from the pod's namespace and name. */
export function podIp(namespace: string, name: string): string {
  const h = fnv32a(`${namespace}/${name}`);
  return `10.${(h >>> 16) & 255}.${(h >>> 8) & 255}.${Math.max(2, h & 255)}`;
}
