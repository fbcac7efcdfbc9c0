/** The replay's progress lines: at most one every 15 s, each engine's share, the time since the start. */
import { describe, expect, it } from 'vitest';
import { duration, progressReporter } from '../../src/replay/progress.js';

describe('progressReporter', () => {
  it('is silent for 15 s, then one line naming every engine, then silent for 15 s again', () => {
    const p = progressReporter(['hpa', 'gpuops-patch', 'gpuops-pr'], 0);
    expect(p.update('hpa', 0.1, 14_999)).toBeNull();
    expect(p.update('gpuops-pr', 0.056, 15_000)).toBe(
      '  running: hpa 10 %, gpuops-patch 0 %, gpuops-pr 5 % (15 s)',
    );
    expect(p.update('hpa', 0.5, 29_999)).toBeNull();
    expect(p.update('gpuops-patch', 0.999, 130_000)).toBe(
      '  running: hpa 50 %, gpuops-patch 99 %, gpuops-pr 5 % (2 min 10 s)',
    );
  });
  it('never goes back (a late message of an earlier share) and never above 100 %', () => {
    const p = progressReporter(['hpa'], 0, 1);
    p.update('hpa', 0.6, 0);
    expect(p.update('hpa', 0.4, 1000)).toBe('  running: hpa 60 % (1 s)');
    expect(p.update('hpa', 1.2, 2000)).toBe('  running: hpa 100 % (2 s)');
  });
  it.each([
    [0, '0 s'],
    [59.4, '59 s'],
    [60, '1 min 0 s'],
    [130, '2 min 10 s'],
  ])('duration(%d) = %s', (s, text) => expect(duration(s)).toBe(text));
});
