import type { PubSub } from '../pubsub/pubsub.js';
import type { EnvironmentPlacement } from './actor.js';

/**
 * Where a project whose environments no longer belong where they did is announced (deleted, moved
 * to another organization): every process drops what it cached of their placement at once.
 */
export const PLACEMENT_CHANGES_TOPIC = 'projects.placement_changed';

export interface PlacementChange {
  project_id: number;
}

/**
 * A placement is reused this long at the most: the bound on a change whose announcement was lost
 * (a pub/sub outage), as the router's key cache bounds a key's.
 */
export const PLACEMENT_CACHE_MS = 1000;
const MAX_CACHED = 10_000;

/**
 * The placements of environments recently looked up, for the lookup every environment's request
 * starts with (which organization it belongs to, before any tenant data is read): under load, one
 * statement in two or three of a request. Only found environments are kept (one created a moment
 * ago in another process is found at once), and only while the cache follows a pub/sub on which
 * deletions and moves are announced: without one, every lookup goes to the database.
 */
export class PlacementCache {
  private readonly entries = new Map<number, { placement: EnvironmentPlacement; expires: number }>();
  /** Counts the changes heard: a lookup that began before one must not store what it read. */
  private epoch = 0;
  /**
   * Whether announcements are heard: `subscribing` from the first follow() (so a cache subscribes
   * once), `on` once the pub/sub delivers them; placements are cached only then.
   */
  private listening: 'off' | 'subscribing' | 'on' = 'off';

  /** The environment's placement, from the cache or from `lookup`. */
  async place(id: number, lookup: () => Promise<EnvironmentPlacement | undefined>): Promise<EnvironmentPlacement | undefined> {
    if (this.listening !== 'on') return lookup();
    const now = Date.now();
    const hit = this.entries.get(id);
    if (hit && hit.expires > now) return hit.placement;
    const epoch = this.epoch;
    const placement = await lookup();
    if (placement && epoch === this.epoch) this.remember(placement, now);
    return placement;
  }

  /** Drops the placements of a project's environments (in this process, before its announcement arrives). */
  forget(projectId: number): void {
    this.epoch += 1;
    for (const [id, entry] of this.entries) if (entry.placement.project_id === projectId) this.entries.delete(id);
  }

  /** Follows the announcements of `pubsub`; from then on, placements are cached. Once per cache. */
  async follow(pubsub: PubSub): Promise<void> {
    if (this.listening !== 'off') return;
    this.listening = 'subscribing';
    const changes = pubsub.subscribe<PlacementChange>(PLACEMENT_CHANGES_TOPIC);
    await pubsub.ready();
    this.listening = 'on';
    void (async () => {
      for await (const { payload } of changes) this.forget(payload.project_id);
    })()
      .catch(() => undefined)
      // The subscription ended or failed: announcements are no longer heard, so nothing is trusted.
      .finally(() => {
        this.listening = 'off';
        this.entries.clear();
      });
  }

  private remember(placement: EnvironmentPlacement, now: number): void {
    if (this.entries.size >= MAX_CACHED) this.entries.clear();
    this.entries.set(placement.id, { placement, expires: now + PLACEMENT_CACHE_MS });
  }
}

const caches = new WeakMap<object, PlacementCache>();

/**
 * The placement cache of one database's ORM (its driver, which every forked EntityManager shares):
 * a process can serve several databases (tests do), whose environment ids mean different things.
 */
export function placementCacheOf(driver: object): PlacementCache {
  let cache = caches.get(driver);
  if (!cache) caches.set(driver, (cache = new PlacementCache()));
  return cache;
}

/** Announces that a project's environments moved or went: every process forgets their placement. */
export async function announcePlacementChange(pubsub: PubSub | undefined, driver: object, projectId: number): Promise<void> {
  placementCacheOf(driver).forget(projectId);
  await pubsub?.publish(PLACEMENT_CHANGES_TOPIC, { project_id: projectId } satisfies PlacementChange);
}
