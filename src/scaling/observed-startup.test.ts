import { describe, expect, it } from 'vitest';
import { pod } from '../../test/scaling/support.js';
import { observedStartup, podStartups } from './observed-startup.js';

const at = (s: number) => new Date(Date.parse('2025-01-01T00:00:00Z') + s * 1000).toISOString();

describe('podStartups: created → Ready of the Ready pods that state both', () => {
  it.each<[string, Parameters<typeof pod>[1], number[]]>([
    ['ReadyWithATime', { readyAt: at(42.5) }, [42.5]],
    ['ReadyAtCreation', { readyAt: at(0) }, [0]],
    ['NotReady', { ready: false, readyAt: at(42) }, []],
    ['NoReadyTime', {}, []],
    ['ReadyBeforeCreated', { readyAt: at(-1) }, []],
    ['BadCreationTime', { createdAt: 'soon', readyAt: at(5) }, []],
    // A claimed standby was created long before its claim: its age as a standby is no start-up.
    ['ClaimedStandby', { labels: { 'gpuops.dev/claimed-from': 'llm' }, readyAt: at(3600) }, []],
    ['OtherLabelsCount', { labels: { 'gpuops.dev/standby': 'llm' }, readyAt: at(30) }, [30]],
  ])('%s', (_name, o, want) => {
    expect(podStartups([pod('p', o)])).toEqual(want);
  });
});

describe('observedStartup: the 90th percentile, nearest rank, whole seconds up', () => {
  it.each<[string, number[], number | null]>([
    ['None', [], null],
    ['One', [22.1], 23],
    // 10 values: rank 9.
    ['TenTakesTheNinth', [1, 2, 3, 4, 5, 6, 7, 8, 9, 100], 9],
    // 11 values: rank ceil(9.9) = 10.
    ['ElevenTakesTheTenth', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100], 10],
    ['Unsorted', [30, 10, 20], 30],
  ])('%s', (_name, xs, want) => {
    expect(observedStartup(xs)).toBe(want);
  });
});
