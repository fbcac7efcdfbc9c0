import { describe, expect, it } from 'vitest';
import type { Pool } from '../../definitions/types.js';
import { baseInput, brief, factsOf } from '../../../test/scaling/support.js';
import { notPlaced } from './not-placed.js';

describe('notPlaced: only long-task and short-task are scaled', () => {
  it.each<[Pool | null, string]>([
    ['long-task', 'null'],
    ['short-task', 'null'],
    [null, 'hold NotPlaced 3'],
    ['unused', 'hold NotPlaced 3'],
    ['test', 'hold NotPlaced 3'],
  ])('pool %s → %s', (pool, want) => {
    expect(brief(notPlaced(factsOf({ ...baseInput(), pool })))).toBe(want);
  });

  it.each<[Pool | null, string]>([
    [null, 'none'],
    ['test', 'test'],
  ])('the message names pool %s as %s', (pool, shown) => {
    expect(notPlaced(factsOf({ ...baseInput(), pool }))?.message).toBe(
      `its Deployment in Git is not pinned to long-task or short-task (pool: ${shown}); replicas stay at 3 until a placement pins it`,
    );
  });
});
