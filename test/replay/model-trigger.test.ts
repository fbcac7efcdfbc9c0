/**
 * The model's crossing trigger (`modelTrigger`) fires as `gpuops run`'s does (`watchReading`): on
 * leaving the band, on a change of side (saturation included, so the flap hold's saturated
 * exception is acted on at once, not at the next periodic pass), and once the last hold can change.
 */
import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { modelTrigger } from '../../src/replay/model-trigger.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const BAND = { min: 30, max: 80, maxReplicas: 40 };

describe('modelTrigger: step sizing on 4 replicas, all Ready', () => {
  it('fires on the crossing, on each change of side and when the hold ends, never twice on one side', async () => {
    const trigger = modelTrigger(await loadDefaultPolicy(), BAND);
    const at = (t: number, u: number) => trigger.crossed(t, 4, 4, u);
    expect(at(5, 50)).toBe(false); // in band
    expect(at(10, 90)).toBe(true); // left it, above
    trigger.decided(START + 1_000_000); // held (a flap hold) far off
    expect(at(15, 95)).toBe(false); // still above, still held
    expect(at(20, 98.9)).toBe(false);
    expect(at(25, 99)).toBe(true); // saturated: the flap hold lets it through
    expect(at(30, 100)).toBe(false); // still saturated
    expect(at(35, 90)).toBe(true); // above again, not saturated
    expect(at(40, 10)).toBe(true); // below min: the other side
    expect(at(45, 10)).toBe(false);
    trigger.decided(START + 50_000);
    expect(at(50, 10)).toBe(true); // the hold can change at exactly its end
  });
});
