import { describe, expect, it } from 'vitest';
import { Slots } from './slots.js';

describe(Slots.name, () => {
  it('lets `size` holders in at once and the next waiter in, in order, as each leaves', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const first = await slots.acquire();
    const second = await slots.acquire();
    const third = slots.acquire().then((release) => (order.push('third'), release));
    const fourth = slots.acquire().then((release) => (order.push('fourth'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    const again = await slots.acquire();
    const andAgain = await slots.acquire();
    again();
    andAgain();
  });
});

describe('Slots with a budget', () => {
  it('lets holders in while their weights fit, one heavier than the budget alone, and keeps the order', async () => {
    const slots = new Slots(8, 100);
    const order: string[] = [];
    const a = await slots.acquire(60);
    const b = slots.acquire(50).then((release) => (order.push('b'), release));
    const c = slots.acquire(10).then((release) => (order.push('c'), release));
    await Promise.resolve();
    // c would fit, but waits behind b: a heavy request is not starved by light ones.
    expect(order).toEqual([]);
    a();
    const releaseB = await b;
    const releaseC = await c;
    expect(order).toEqual(['b', 'c']);
    const huge = slots.acquire(500).then((release) => (order.push('huge'), release));
    releaseB();
    await Promise.resolve();
    expect(order).toEqual(['b', 'c']);
    releaseC();
    (await huge)();
    expect(order).toEqual(['b', 'c', 'huge']);
  });
});
