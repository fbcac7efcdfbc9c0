/**
 * The pass's misplaced-spec check (`pass/misplaced-specs.ts`) reads no blob of the folders gpuops
 * writes its manifests into (`clusters/<cluster>/nodes/`, `…/namespaces/`, `…/algorithms/<name>/`,
 * `…/standby/<set>/`: ../shared/DESIGN.md's layout): they are gpuops's own output, read apart by
 * `readTree`, and 10,000 node files would be 10,000 blobs read. YAML a person dropped elsewhere
 * under `clusters/` is still read and warned about. A fake working copy counts the blobs chosen.
 */
import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { ListedFile } from '../../src/definitions/spec-files.js';
import type { ListedBlob } from '../../src/pass/misplaced-specs.js';
import { workingCopySpecs, type SpecsTree } from '../../src/pass/specs.js';
import { createReconcilerMemory } from '../../src/plan/memory.js';
import { algorithmFile } from '../support/reconcile-harness.js';

const POLICY = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec: {}\n';
/** A rendered manifest that reads like a spec (an Algorithm document), as a hand edit could leave one. */
const LOOKS_LIKE_A_SPEC = algorithmFile('rendered');
const FILES: Record<string, string> = {
  'algorithms/good.yaml': algorithmFile('good'),
  'clusters/prod/nodes/gpu-a.yaml': 'apiVersion: v1\nkind: Node\nmetadata: {name: gpu-a}\n',
  'clusters/prod/nodes/gpu-b.yaml': LOOKS_LIKE_A_SPEC,
  'clusters/prod/namespaces/ml.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n',
  'clusters/prod/algorithms/good/deployment.yaml': LOOKS_LIKE_A_SPEC,
  'clusters/staging/standby/warm/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\n',
  // Not folders gpuops writes: a person's files, looked at.
  'clusters/prod/dropped.yaml': algorithmFile('dropped'),
  'clusters/prod/algorithms/by-hand.yaml': algorithmFile('by-hand'),
  'clusters/prod/team/limits.yaml': POLICY,
};

/** A working copy holding `FILES` that records the paths `readSelected` reads. */
function fakeTree(read: string[]): SpecsTree {
  return {
    sync: async () => undefined,
    readTree: async (prefix) => new Map(Object.entries(FILES).filter(([p]) => p.startsWith(prefix))),
    readSelected: async (choose: (entries: readonly ListedBlob[]) => readonly ListedFile[]) => {
      const entries = Object.entries(FILES).map(([path, text]) => ({
        path,
        size: Buffer.byteLength(text),
        blob: `blob-of-${path}`,
      }));
      const chosen = choose(entries).map((f) => f.path);
      read.push(...chosen);
      return new Map(chosen.map((p) => [p, FILES[p]!]));
    },
    gitlinks: async () => [],
  };
}

describe('the misplaced-spec check of the pass and gpuops’s own output', () => {
  it('reads no blob of a folder gpuops writes; a person’s YAML under clusters/ is read and warned about', async () => {
    const read: string[] = [];
    const { repo } = await workingCopySpecs(fakeTree(read)).read(
      'prod',
      await loadDefaultPolicy(),
      createReconcilerMemory(),
    );
    expect(read.sort()).toEqual([
      'algorithms/good.yaml',
      'clusters/prod/algorithms/by-hand.yaml',
      'clusters/prod/dropped.yaml',
      'clusters/prod/team/limits.yaml',
    ]);
    expect(repo.algorithms.map((a) => a.name)).toEqual(['good']);
    expect(repo.warnings?.map((w) => [w.file, w.field])).toEqual([
      ['clusters/prod/algorithms/by-hand.yaml', 'kind'],
      ['clusters/prod/dropped.yaml', 'kind'],
      ['clusters/prod/team/limits.yaml', 'kind'],
    ]);
  });
});
