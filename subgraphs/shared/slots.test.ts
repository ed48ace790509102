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
