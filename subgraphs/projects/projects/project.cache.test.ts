import { afterEach, describe, expect, it } from 'vitest';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import { announceProjectChange, ProjectCache, projectCacheOf } from './project.cache.js';

const placement = { id: 7, project_id: 7, organization_id: 'org-a' };
const brief = (id: number) => ({ id, organization_id: 'org-a', name: `Project ${id}` });

/** A lookup that counts its calls and answers `answer` (after `gate`, when given; `none`: nothing found). */
function counted(answer: typeof placement | 'none' = placement, gate?: Promise<void>) {
  const lookup = Object.assign(
    async () => {
      lookup.calls += 1;
      await gate;
      return answer === 'none' ? undefined : answer;
    },
    { calls: 0 },
  );
  return lookup;
}

/** A lookup of briefs that records which ids it was asked and finds those under 100. */
function briefLookup() {
  const asked: number[][] = [];
  const lookup = async (ids: number[]) => {
    asked.push(ids);
    return new Map(ids.filter((id) => id < 100).map((id) => [id, brief(id)]));
  };
  return { asked, lookup };
}

describe(ProjectCache.name, () => {
  const pubsubs: MemoryPubSub[] = [];
  afterEach(async () => {
    for (const pubsub of pubsubs.splice(0)) await pubsub.close();
  });
  const following = async () => {
    const pubsub = new MemoryPubSub();
    pubsubs.push(pubsub);
    const driver = {};
    await projectCacheOf(driver).follow(pubsub);
    return { pubsub, driver, cache: projectCacheOf(driver) };
  };
  const heard = () => new Promise((resolve) => setImmediate(resolve));

  it('asks the database every time while it follows no pub/sub', async () => {
    const lookup = counted();
    const cache = new ProjectCache();
    await cache.placements.one(7, lookup);
    await cache.placements.one(7, lookup);
    expect(lookup.calls).toBe(2);
  });

  it('reuses a found placement, never a missing one', async () => {
    const { cache } = await following();
    const found = counted();
    expect(await cache.placements.one(7, found)).toEqual(placement);
    expect(await cache.placements.one(7, found)).toEqual(placement);
    expect(found.calls).toBe(1);
    const missing = counted('none');
    await cache.placements.one(8, missing);
    await cache.placements.one(8, missing);
    expect(missing.calls).toBe(2);
  });

  it('looks up only the briefs it does not hold, and never keeps a missing one', async () => {
    const { cache } = await following();
    const { asked, lookup } = briefLookup();
    expect([...(await cache.briefs.many([1, 2], lookup)).keys()]).toEqual([1, 2]);
    const answer = await cache.briefs.many([2, 3, 100], lookup);
    expect(answer).toEqual(new Map([[2, brief(2)], [3, brief(3)]]));
    await cache.briefs.many([1, 100], lookup);
    expect(asked).toEqual([[1, 2], [3, 100], [100]]);
  });

  it("forgets a project's placements and brief when another process announces it changed", async () => {
    const { cache, pubsub } = await following();
    const lookup = counted();
    const briefs = briefLookup();
    await cache.placements.one(7, lookup);
    await cache.briefs.many([7, 8], briefs.lookup);
    await announceProjectChange(pubsub, {}, 7);
    await heard();
    await cache.placements.one(7, lookup);
    await cache.briefs.many([7, 8], briefs.lookup);
    expect(lookup.calls).toBe(2);
    expect(briefs.asked).toEqual([[7, 8], [7]]);
  });

  it('does not keep what a lookup read while a change was announced', async () => {
    const { cache, driver } = await following();
    let release!: () => void;
    const slow = counted(placement, new Promise<void>((resolve) => (release = resolve)));
    const reading = cache.placements.one(7, slow);
    await announceProjectChange(undefined, driver, 7);
    release();
    await reading;
    const after = counted();
    await cache.placements.one(7, after);
    expect(after.calls).toBe(1);
  });
});
