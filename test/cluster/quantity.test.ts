import { describe, expect, it } from 'vitest';
import { QuantityError, parseQuantity } from '../../src/cluster/quantity.js';
import { parseQuantity as simQuantity } from '../../src/sim/controllers/pods.js';

describe('parseQuantity (client-node quantityToScalar)', () => {
  it.each([
    ['8', 8],
    ['0', 0],
    ['', 0],
    [' 4 ', 4],
    ['500m', 0.5],
    ['1k', 1000],
    ['16Gi', 16 * 1024 ** 3],
    ['2P', 2e15],
    ['1E', 1e18],
    ['1Pi', 1024 ** 5],
    ['1e3', 1000],
    ['1536Mi', 1536 * 1024 ** 2],
  ])('%j → %d', (text, value) => {
    expect(parseQuantity(text)).toBe(value);
  });

  it.each(['abc', '16GB', '16g', 'Gi', '1.5Gi', '4 GPUs'])('%j is reported, never read as 0', (text) => {
    expect(() => parseQuantity(text)).toThrow(QuantityError);
    expect(() => parseQuantity(text)).toThrow(`not a Kubernetes quantity: ${JSON.stringify(text)}`);
  });
});

describe("the simulator's quantities go through the same parser", () => {
  it.each([
    [undefined, 0],
    [null, 0],
    [3, 3],
    ['2P', 2e15],
    ['500m', 0.5],
  ])('%j → %d', (value, expected) => {
    expect(simQuantity(value)).toBe(expected);
  });

  it.each(['garbage', '8x', Number.NaN])('%j throws instead of counting as 0', (value) => {
    expect(() => simQuantity(value)).toThrow(QuantityError);
  });
});
