/**
 * The repository a simulated replay engine starts from passes gpuops's own validation for every
 * engine, at the bundled trace's fleet (120 replicas: above the shipped `limits.replicas` of 100,
 * which refused the spec and left the simulated engines with no Ready pod) and around that cap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepo } from '../../src/definitions/load.js';
import type { SimEngine } from '../../src/replay/sim-engine.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import { seedRepo } from '../../src/replay/sim-repo.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'gpuops-replay-repo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('seedRepo', () => {
  it.each<[SimEngine, number]>([
    ['hpa', 120],
    ['gpuops-patch', 120],
    ['gpuops-pr', 120],
    ['hpa', 100],
    ['hpa', 101],
    ['gpuops-patch', 8],
  ])('%s at maxReplicas %i: no spec error, the spec as written', async (engine, maxReplicas) => {
    const dir = mkdtempSync(path.join(root, `${engine}-`));
    seedRepo(dir, engine, DEFAULT_REPLAY_SETTINGS, maxReplicas);
    const repo = await loadRepo(dir);
    expect(repo.errors).toEqual([]);
    expect(repo.algorithms.map((a) => [a.name, a.scaling.maxReplicas])).toEqual([['sd-serve', maxReplicas]]);
  });
});
