/**
 * Shapes of the Argo CD-like applier: the manifests read from a GitOps folder and the summary of
 * one sync.
 */

import type { KubeObject } from '../cluster/index.js';

/** One object with where it came from. */
export interface SourcedManifest {
  /** Path of the file, relative to the folder given to the applier. */
  file: string;
  /** 1-based line where the YAML document starts. */
  line: number;
  /** The object as read from the file (possibly partial, e.g. a Node with only labels). */
  object: KubeObject;
}

/** Identifies one object in messages and summaries. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  /** Undefined for cluster-scoped objects (Node, Namespace). */
  namespace?: string;
  name: string;
}

/** One object the sync applied. */
export interface AppliedObject extends ObjectRef {
  /** `argocd.argoproj.io/sync-wave` (default 0). */
  wave: number;
  /** `created`: it did not exist; `configured`: it changed; `unchanged`: the apply was a no-op. */
  result: 'created' | 'configured' | 'unchanged';
}

/**
 * A problem of one file or object. Machine reasons: `InvalidKustomization`, `InvalidManifest`,
 * `UnsupportedKustomization`, `DuplicateObject`, `NodeNotFound`, `UnknownKind`, `ApplyFailed`,
 * `PruneFailed`, `SkippedAfterFailedWave`.
 */
export interface ApplyError {
  reason: string;
  message: string;
  file?: string;
  line?: number;
  object?: ObjectRef;
}

/** What one sync did. */
export interface ApplySummary {
  /** In the order applied (wave, kind, name). */
  applied: AppliedObject[];
  /** Objects deleted because they are no longer in Git. */
  pruned: ObjectRef[];
  /** Objects not applied because an earlier wave failed (Argo CD stops a sync at a failed wave). */
  skipped: ObjectRef[];
  errors: ApplyError[];
}
