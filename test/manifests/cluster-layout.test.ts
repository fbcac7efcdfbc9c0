/** The kustomization files of the old layout that must go, and which names count as one. */
import { describe, expect, it } from 'vitest';
import {
  clusterDir,
  isKustomizationFile,
  KUSTOMIZATION_FILE_NAMES,
  legacyKustomizationDeletions,
} from '../../src/manifests/cluster-layout.js';

describe('isKustomizationFile', () => {
  it.each([
    { path: 'clusters/prod/kustomization.yaml', want: true },
    { path: 'clusters/prod/algorithms/a/kustomization.yml', want: true },
    { path: 'clusters/prod/nodes/Kustomization', want: true },
    { path: 'kustomization.yaml', want: true },
    { path: 'clusters/prod/kustomization.json', want: false },
    { path: 'clusters/prod/Kustomization.yaml', want: false },
    { path: 'clusters/prod/kustomization.yaml/deployment.yaml', want: false },
    { path: 'clusters/prod/my-kustomization.yaml', want: false },
  ])('$path: $want', ({ path, want }) => {
    expect(isKustomizationFile(path)).toBe(want);
  });

  it('knows the three names kustomize accepts', () => {
    expect(KUSTOMIZATION_FILE_NAMES).toEqual(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);
  });
});

describe('legacyKustomizationDeletions', () => {
  it('deletes every kustomization file under the cluster folder, once each, sorted; nothing else', () => {
    const paths = [
      'clusters/prod/nodes/kustomization.yaml',
      'clusters/prod/kustomization.yaml',
      'clusters/prod/algorithms/a/kustomization.yml',
      'clusters/prod/algorithms/a/deployment.yaml',
      'clusters/prod/kustomization.yaml',
      'clusters/prod-2/kustomization.yaml',
      'clusters/other/kustomization.yaml',
      'kustomization.yaml',
    ];
    expect(legacyKustomizationDeletions('prod', paths)).toEqual([
      { path: 'clusters/prod/algorithms/a/kustomization.yml', content: null },
      { path: 'clusters/prod/kustomization.yaml', content: null },
      { path: 'clusters/prod/nodes/kustomization.yaml', content: null },
    ]);
  });

  it('nothing to delete in the new layout', () => {
    expect(legacyKustomizationDeletions('prod', ['clusters/prod/nodes/gpu-1.yaml'])).toEqual([]);
  });

  it('the cluster folder is clusters/<cluster>', () => {
    expect(clusterDir('eu-1')).toBe('clusters/eu-1');
  });
});
