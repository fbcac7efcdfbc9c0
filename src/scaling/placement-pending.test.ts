/** The scaling entry of an algorithm whose Deployment is not in Git yet: the whole decision. */
import { describe, expect, it } from 'vitest';
import { algorithm } from '../../test/scaling/support.js';
import { placementPending } from './placement-pending.js';

describe('placementPending', () => {
  it('a hold at 0 → 0 with no utilisation and no node, naming the pool and the replicas to come', () => {
    expect(placementPending(algorithm({ name: 'bert-qa', minReplicas: 2 }), 'short-task')).toEqual({
      algorithm: 'bert-qa',
      action: 'hold',
      replicas: { from: 0, to: 0 },
      utilization: null,
      nodes: [],
      reason: 'PlacementPending',
      message:
        'bert-qa: no Deployment in Git yet; the placement pull request creates it on pool short-task with 2 replica(s), and scaling starts once it is merged',
    });
  });
});
