import { describe, expect, it } from 'vitest';
import { GpuSlots } from '../../src/benchmark/gpu-slots.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('GpuSlots', () => {
  it('never holds more than the capacity; waiting requests start as GPUs come back', async () => {
    const slots = new GpuSlots(2);
    const r1 = await slots.acquire(1);
    const r2 = await slots.acquire(1);
    let third = false;
    const p3 = slots.acquire(1).then((r) => ((third = true), r));
    await tick();
    expect(third).toBe(false);
    expect(slots.held).toBe(2);
    r1();
    const r3 = await p3;
    expect(third).toBe(true);
    expect(slots.held).toBe(2);
    r2();
    r3();
    expect(slots.held).toBe(0);
    expect(slots.peakHeld).toBe(2);
  });

  it('is first-in first-out: a large request is not starved by later small ones', async () => {
    const slots = new GpuSlots(2);
    const r1 = await slots.acquire(1);
    const order: string[] = [];
    const big = slots.acquire(2).then((r) => (order.push('big'), r));
    const small = slots.acquire(1).then((r) => (order.push('small'), r));
    await tick();
    expect(order).toEqual([]);
    r1();
    (await big)();
    (await small)();
    expect(order).toEqual(['big', 'small']);
  });

  it('clamps a request above the capacity to the whole capacity', async () => {
    const slots = new GpuSlots(2);
    const r = await slots.acquire(8);
    expect(slots.held).toBe(2);
    r();
    r(); // releasing twice gives back once
    expect(slots.held).toBe(0);
  });

  it('rejects a capacity below 1', () => expect(() => new GpuSlots(0)).toThrow(RangeError));
});
