import { describe, expect, it } from 'vitest';
import { fairShare, FairSlots } from './fair-slots.js';

/** Lets settled promises run their callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Acquires a slot for `key` and notes, in `order`, when it was given. */
function ask(slots: FairSlots<string>, key: string, order: string[], label = key) {
  return slots.acquire(key).then((release) => (order.push(label), release));
}

describe(FairSlots.name, () => {
  describe('acquire', () => {
    it('keeps one key below the whole, so that another key gets in at once', async () => {
      const slots = new FairSlots<string>(6, 4);
      const order: string[] = [];
      const heavy = await Promise.all([1, 2, 3, 4].map(() => slots.acquire('b')));
      const waiting = [ask(slots, 'b', order, 'b5'), ask(slots, 'b', order, 'b6')];
      await settle();
      expect(order).toEqual([]);
      expect(slots.holding('b')).toBe(4);
      const light = await ask(slots, 'a', order, 'a1');
      expect(order).toEqual(['a1']);
      light();
      heavy[0]!();
      await settle();
      expect(order).toEqual(['a1', 'b5']);
      for (const release of heavy.slice(1)) release();
      for (const release of await Promise.all(waiting)) release();
      expect(order).toEqual(['a1', 'b5', 'b6']);
      expect(slots.holding('b')).toBe(0);
    });

    it('serves the key holding fewest next, of equals the one waiting longest', async () => {
      const slots = new FairSlots<string>(2, 2);
      const order: string[] = [];
      const held = [await slots.acquire('b'), await slots.acquire('b')];
      const [b3, b4, a1, c1] = [ask(slots, 'b', order, 'b3'), ask(slots, 'b', order, 'b4'), ask(slots, 'a', order, 'a1'), ask(slots, 'c', order, 'c1')];
      held[0]!();
      await settle();
      // a and c hold none and b one: a, waiting longer than c, goes first although b queued first.
      expect(order).toEqual(['a1']);
      held[1]!();
      await settle();
      // Now b holds none either, and waited longest.
      expect(order).toEqual(['a1', 'b3']);
      (await a1!)();
      await settle();
      expect(order).toEqual(['a1', 'b3', 'c1']);
      (await c1!)();
      (await b3!)();
      (await b4!)();
      expect(order).toEqual(['a1', 'b3', 'c1', 'b4']);
    });

    it('keeps each key in order and frees a slot once however often release is called', async () => {
      const slots = new FairSlots<string>(1);
      const order: string[] = [];
      const first = await slots.acquire('a');
      const second = ask(slots, 'a', order, 'a2');
      const third = ask(slots, 'a', order, 'a3');
      first();
      first();
      await settle();
      expect(order).toEqual(['a2']);
      (await second)();
      (await third)();
      expect(order).toEqual(['a2', 'a3']);
    });

    it('serves a waiting key first once it holds fewest, however many newcomers queue', async () => {
      const slots = new FairSlots<string>(3, 2);
      const order: string[] = [];
      const first = await slots.acquire('a');
      const others = [await slots.acquire('b'), await slots.acquire('c')];
      const patient = ask(slots, 'a', order, 'a2');
      // While a holds one, newcomers holding none go first ...
      const newcomers = [ask(slots, 'd', order), ask(slots, 'e', order), ask(slots, 'f', order)];
      others[0]!();
      await settle();
      expect(order).toEqual(['d']);
      // ... and once a holds none, it has waited longest of those holding none.
      first();
      await settle();
      expect(order).toEqual(['d', 'a2']);
      others[1]!();
      await settle();
      expect(order).toEqual(['d', 'a2', 'e']);
      (await patient)();
      for (const release of await Promise.all(newcomers)) release();
      expect(order).toEqual(['d', 'a2', 'e', 'f']);
    });
  });
});

describe('fairShare', () => {
  it('leaves slots for others whenever there is more than one', () => {
    expect([1, 2, 3, 6, 9, 64].map(fairShare)).toEqual([1, 1, 2, 4, 6, 43]);
  });
});
