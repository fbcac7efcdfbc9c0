/**
 * `gpuops_algorithm_held{algorithm,reason}`: 1 for each algorithm the newest pass's fleet status
 * records as held (a failed model cache fill), no series for the others.
 */
import { describe, expect, it } from 'vitest';
import { createControllerMetrics, registerFleetGauges } from '../../src/controller/metrics.js';
import type { FleetStatusRecord, StatusAlgorithmEntry } from '../../src/store/types.js';

const entry = (name: string, held?: StatusAlgorithmEntry['held']): StatusAlgorithmEntry => ({
  name,
  pool: 'short-task',
  runTimeSeconds: 30,
  placementReason: 'AtOrBelowThreshold',
  placementMessage: '',
  replicas: held ? null : 2,
  minReplicas: 1,
  maxReplicas: 4,
  utilizationMin: 30,
  utilizationMax: 80,
  scalingReason: null,
  scalingMessage: null,
  ...(held ? { held } : {}),
});

async function scrape(algorithms: StatusAlgorithmEntry[]): Promise<string[]> {
  const metrics = createControllerMetrics(false);
  const fleet: FleetStatusRecord = {
    cluster: 'prod',
    at: '2026-12-06T12:00:00.000Z',
    longTaskThresholdSeconds: 600,
    pools: [],
    algorithms,
  };
  registerFleetGauges(metrics.registry, async () => ({ fleet, openPullRequests: [] }));
  const text = await metrics.registry.metrics();
  return text.split('\n').filter((l) => l.startsWith('gpuops_algorithm_held'));
}

describe('gpuops_algorithm_held', () => {
  it('is 1 for an algorithm held by a failed fill, with the reason; absent for the others', async () => {
    expect(
      await scrape([
        entry('bert', {
          reason: 'ModelCacheFillFailed',
          message: 'fill Job algorithms/bert-model-cache-1 failed',
        }),
        entry('llama'),
      ]),
    ).toEqual(['gpuops_algorithm_held{algorithm="bert",reason="ModelCacheFillFailed"} 1']);
  });

  it('has no series when nothing is held', async () => {
    expect(await scrape([entry('llama')])).toEqual([]);
  });
});
