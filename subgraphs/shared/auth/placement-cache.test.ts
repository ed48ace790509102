import { afterEach, describe, expect, it } from 'vitest';
import { MemoryPubSub } from '../pubsub/memory.pubsub.js';
import { announcePlacementChange, PlacementCache, placementCacheOf } from './placement-cache.js';

const placement = { id: 7, project_id: 7, organization_id: 'org-a' };

/** A lookup that counts its calls and answers `answer` (after `gate`, when given). */
function counted(answer = placement, gate?: Promise<void>) {
  const lookup = Object.assign(
    async () => {
      lookup.calls += 1;
      await gate;
      return answer;
    },
    { calls: 0 },
  );
  return lookup;
}

describe(PlacementCache.name, () => {
  const pubsubs: MemoryPubSub[] = [];
  afterEach(async () => {
    for (const pubsub of pubsubs.splice(0)) await pubsub.close();
  });
  const following = async () => {
    const pubsub = new MemoryPubSub();
    pubsubs.push(pubsub);
    const driver = {};
    await placementCacheOf(driver).follow(pubsub);
    return { pubsub, driver, cache: placementCacheOf(driver) };
  };

  it('asks the database every time while it follows no pub/sub', async () => {
    const lookup = counted();
    const cache = new PlacementCache();
    await cache.place(7, lookup);
    await cache.place(7, lookup);
    expect(lookup.calls).toBe(2);
  });

  it('reuses a found placement, never a missing one', async () => {
    const { cache } = await following();
    const found = counted();
    expect(await cache.place(7, found)).toEqual(placement);
    expect(await cache.place(7, found)).toEqual(placement);
    expect(found.calls).toBe(1);
    const missing = counted(undefined);
    await cache.place(8, missing);
    await cache.place(8, missing);
    expect(missing.calls).toBe(2);
  });

  it("forgets a project's placements when another process announces it moved or went", async () => {
    const { cache, pubsub } = await following();
    const lookup = counted();
    await cache.place(7, lookup);
    await announcePlacementChange(pubsub, {}, 7);
    await new Promise((resolve) => setImmediate(resolve));
    await cache.place(7, lookup);
    expect(lookup.calls).toBe(2);
  });

  it('does not keep what a lookup read while a change was announced', async () => {
    const { cache, driver } = await following();
    let release!: () => void;
    const slow = counted(placement, new Promise<void>((resolve) => (release = resolve)));
    const reading = cache.place(7, slow);
    await announcePlacementChange(undefined, driver, 7);
    release();
    await reading;
    const after = counted();
    await cache.place(7, after);
    expect(after.calls).toBe(1);
  });
});
