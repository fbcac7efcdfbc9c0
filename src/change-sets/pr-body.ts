/**
 * Pull-request bodies and the desired-state hash (titles: `pr-title.ts`). Pure: data in, Markdown out; no clock,
 * so the same evidence always renders the same bytes (a body that changed every pass would update
 * the PR every pass).
 */
import { createHash } from 'node:crypto';
import type { PoolAssignment } from '../pools/index.js';
import type { CreatedObject } from './created-objects.js';
import type { RemovedMetadata } from './removed-metadata.js';
import { fitText, GITHUB_BODY_MAX } from './host-limits.js';
import {
  filesSection,
  grantsSection,
  placementSection,
  poolsSection,
  removesSection,
  scalingSection,
} from './pr-sections.js';
import { count, plural } from './pr-text.js';
import { prTitle } from './pr-title.js';
import { describeRemoved, type RemovedObject } from './removed-objects.js';
import type { PlacementEvidence, ScalingEvidence, StandbyEvidence } from './pr-evidence.js';
import { standbyWhy } from './pr-standby.js';
import type { ChangeKind, FileChange, PlannedFile } from './types.js';
import { GPUOPS } from '../util/index.js';

export type { PlacementEvidence, ScalingEvidence } from './pr-evidence.js';

/** Prefix of the hidden marker; the full marker is `<!-- gpuops:desired-hash=<hex> -->`. */
export const DESIRED_HASH_MARKER = 'gpuops:desired-hash=';

/**
 * sha256 (hex) of a change set's desired files, independent of their order: every file as
 * `path NUL content NUL` (a deletion as `path NUL \u0001deleted NUL`), sorted by path.
 */
export function desiredHash(files: readonly FileChange[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    h.update(f.path)
      .update('\0')
      .update(f.content ?? '\u0001deleted')
      .update('\0');
  }
  return h.digest('hex');
}

/** The hidden marker line for a hash. */
export function hashMarker(hash: string): string {
  return `<!-- ${DESIRED_HASH_MARKER}${hash} -->`;
}

/** The desired hash recorded in a PR body, or null when the body carries no marker. */
export function parseDesiredHash(body: string | null | undefined): string | null {
  const m = /<!--\s*gpuops:desired-hash=([0-9a-f]{16,128})\s*-->/.exec(body ?? '');
  return m?.[1] ?? null;
}

/** `body` without any desired-hash marker, trailing whitespace trimmed. */
export function stripHashMarker(body: string): string {
  return body.replace(/\n*<!--\s*gpuops:desired-hash=[0-9a-f]*\s*-->\n*/g, '\n').trimEnd();
}

/** `body` with exactly one marker for `hash` at its end (replacing any earlier marker). */
export function withHashMarker(body: string, hash: string): string {
  return `${stripHashMarker(body)}\n\n${hashMarker(hash)}\n`;
}

/** Everything a PR body shows. Only the sections with data are rendered. */
export interface PrBodyInput {
  cluster: string;
  kind: ChangeKind;
  subject: string;
  /** Files that differ from the base branch. */
  files: PlannedFile[];
  desiredHash: string;
  placements?: PlacementEvidence[];
  scaling?: ScalingEvidence[];
  /**
   * Pool assignments; those whose pool changes (`from !== to`) are listed as moves, GPU nodes that
   * stay in no pool (`from` and `to` null, reason other than `NoGPU`) as left out with their reason.
   */
  pools?: PoolAssignment[];
  /** The standby set's sizing (kind `standby`). */
  standby?: StandbyEvidence;
  /** Namespaces and bindings the change set creates or changes (`createdObjects`). */
  creates?: readonly CreatedObject[];
  /** Labels and annotations the change set removes that gpuops does not write (`removedMetadata`). */
  removedMetadata?: readonly RemovedMetadata[];
  /** Live objects the change set deletes (`removedObjects`): named on the body's first line. */
  removes?: readonly RemovedObject[];
}

/**
 * The body's first line when the change set deletes live objects: every one of them, by kind,
 * namespace/name and the replicas a Deployment runs now (never cut: the reviewer must see what
 * goes before anything else).
 */
export function removalLine(removes: readonly RemovedObject[]): string {
  return `**Merging this pull request deletes ${plural(removes.length, 'live object')}**: ${removes.map((o) => describeRemoved(o)).join(', ')}. An applier that prunes (the shipped Argo CD Application and Flux Kustomization do) deletes ${removes.length === 1 ? 'it' : 'them'} when it syncs the merge.`;
}

/**
 * The Markdown body of a pull request: the live objects it deletes as its first line (when it
 * deletes any, {@link removalLine}), its title, the access it grants (every
 * Namespace and binding it creates or changes), what changes and why, the evidence tables
 * (placements: measured runs, median, threshold; scaling: per-pod utilisation, aggregate,
 * min/max, decision, reason; pools: counts, then node, from → to, reason), the files, and the
 * hidden desired-hash marker at the end. `maxRows` cuts every table to its first rows, each
 * followed by `… and N more`; see {@link fitPrBody}.
 */
export function renderPrBody(input: PrBodyInput, maxRows = Number.POSITIVE_INFINITY): string {
  const removes = input.removes ?? [];
  const parts: string[] = removes.length > 0 ? [removalLine(removes), ''] : [];
  parts.push(`## ${prTitle(input)}`, '');
  const creates = input.creates ?? [];
  if (creates.length > 0) parts.push(grantsSection(creates, maxRows), '');
  const stripped = input.removedMetadata ?? [];
  if (stripped.length > 0) parts.push(removesSection(stripped, maxRows), '');
  if (Number.isFinite(maxRows))
    parts.push(
      `> This text is cut to fit GitHub's ${count(GITHUB_BODY_MAX)} characters: each table shows its first ${plural(maxRows, 'row')}. The whole text is in gpuops's records: \`gpuops prs --all\`, then \`gpuops prs show ID\`.`,
      '',
    );
  const deletedSpec = input.kind === 'placement' && removes.length > 0 && !input.placements?.length;
  const what = deletedSpec
    ? `\`${input.subject}\` is no longer in \`algorithms/\`: gpuops proposes removing what it ran (policy \`placement.onDeletedSpec: propose-removal\`; \`keep-and-report\` keeps the objects and reports them each pass until a person removes them).`
    : input.kind === 'pools'
      ? `gpuops sorts the GPU nodes of cluster \`${input.cluster}\` into pools (label \`${GPUOPS.pool}\`).`
      : input.kind === 'placement'
        ? `gpuops places \`${input.subject}\` on the pool its measured run time calls for.`
        : input.kind === 'standby'
          ? standbyWhy(input.subject, input.standby)
          : `gpuops scales \`${input.subject}\` by its GPU utilisation.`;
  parts.push(what, '');
  for (const ev of input.placements ?? []) parts.push(placementSection(ev, maxRows), '');
  for (const ev of input.scaling ?? []) parts.push(scalingSection(ev, maxRows), '');
  if (input.kind === 'pools' || (input.pools?.length ?? 0) > 0)
    parts.push(poolsSection(input.pools ?? [], maxRows), '');
  parts.push(
    filesSection(input.files, maxRows),
    '',
    '---',
    '<sub>Opened by gpuops. The files under `clusters/` are generated: change the specs in `algorithms/` or `policies/` instead. Closing this pull request without merging keeps gpuops from reopening it until the desired state changes.</sub>',
  );
  return withHashMarker(parts.join('\n'), input.desiredHash);
}

/** Rows per table tried, largest first, when the whole body is over the limit. */
const CUTS = [1000, 500, 200, 100, 50, 20, 10, 5, 1, 0];

/** Where the whole text of a cut pull request is. */
export const FULL_TEXT_AT =
  "the whole text is in gpuops's records (`gpuops prs --all`, then `gpuops prs show ID`)";

/**
 * The body a pull request carries, at most `max` characters (GitHub's 65,536) at any fleet size,
 * and the whole body when that had to be cut. A body over the limit is rendered again with every
 * table cut to its first rows (1,000, 500, … 0) until it fits: the title line, the access
 * objects' count, the pool counts, every "… and N more" and the desired-hash marker stay. A body
 * still over the limit (prose alone too long) is cut by lines (`fitText`), marker kept.
 * @returns `full` null when `body` is the whole body
 */
export function fitPrBody(input: PrBodyInput, max = GITHUB_BODY_MAX): { body: string; full: string | null } {
  const full = renderPrBody(input);
  if (full.length <= max) return { body: full, full: null };
  let body = full;
  for (const rows of CUTS) {
    body = renderPrBody(input, rows);
    if (body.length <= max) return { body, full };
  }
  return { body: fitText(body, FULL_TEXT_AT, max), full };
}
