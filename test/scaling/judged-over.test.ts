/**
 * The Ready count a scaling decision's message carries ("over S of R Ready pod(s)"): `decideOne`
 * writes it with `judgedOver`, `recentPeak` reads it back with `readyPodsJudged`. The round trip
 * goes through `decideOne`'s real message, so a change to the text that the reading misses fails here.
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import { judgedOver, readyPodsJudged } from '../../src/scaling/judged-over.js';
import { baseInput, pod, policyNoWindows } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');

describe('judgedOver / readyPodsJudged', () => {
  it.each([
    { sampled: 0, ready: 0 },
    { sampled: 3, ready: 4 },
    { sampled: 12, ready: 12 },
    { sampled: 9, ready: 105 },
  ])('reads back R from "over $sampled of $ready Ready pod(s)"', ({ sampled, ready }) => {
    expect(readyPodsJudged(`18.5% ${judgedOver(sampled, ready)}; below min 30%`)).toBe(ready);
  });

  it.each([
    { name: 'no count at all', message: 'no usable GPU sample for any of 4 Ready pod(s)' },
    { name: 'the partial-data wording', message: 'but only 2 of 4 Ready pod(s) have a sample' },
    { name: 'an empty message', message: '' },
    { name: 'a word run into "over"', message: 'rollover 3 of 4 Ready pod(s)' },
  ])('null when the message has $name', ({ message }) => {
    expect(readyPodsJudged(message)).toBeNull();
  });

  it.each([
    { name: 'every pod Ready', ready: 3, starting: 0 },
    { name: 'two of five still starting', ready: 3, starting: 2 },
  ])("decide's own message carries the Ready count: $name", ({ ready, starting }) => {
    const input = baseInput(Array.from({ length: ready }, () => 50));
    const pods = [
      ...input.pods,
      ...Array.from({ length: starting }, (_, i) => pod(`resnet50-infer-7d9f-s${i}`, { ready: false })),
    ];
    const d = decideOne({ ...input, pods, replicas: ready + starting }, policyNoWindows(), NOW);
    expect(readyPodsJudged(d.message)).toBe(ready);
  });
});
