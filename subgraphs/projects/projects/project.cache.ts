import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { resubscribing } from '../../shared/pubsub/resubscribing.js';
import type { EnvironmentPlacement } from '../../shared/auth/actor.js';

/**
 * Where a project that changed what the caches below hold is announced (deleted, moved to another
 * organization, renamed): every process drops what it cached of it at once.
 */
export const PROJECT_CHANGES_TOPIC = 'projects.project_changed';

export interface ProjectChange {
  project_id: number;
}

/**
 * A fact is reused this long at the most: the bound on a change whose announcement was lost
 * (a pub/sub outage), as the router's key cache bounds a key's.
 */
export const PROJECT_CACHE_MS = 1000;
const MAX_CACHED = 10_000;

/** A project's brief form (what a record embedding a project shows), with the organization that decides who sees it. */
export interface ProjectBrief {
  id: number;
  organization_id: string;
  name: string;
}

/** What a cache of facts needs of its owner: whether changes are heard, and how many were. */
interface Hearing {
  readonly trusted: boolean;
  readonly epoch: number;
}

/** Facts read from the database, by id, each belonging to one project (whose change drops it). */
export class ProjectFacts<V> {
  private readonly entries = new Map<number, { value: V; expires: number }>();

  constructor(
    private readonly projectOf: (value: V) => number,
    private readonly hearing: Hearing,
  ) {}

  /** The fact of `id`, from the cache or from `lookup` (undefined when there is none). */
  async one(id: number, lookup: () => Promise<V | undefined>): Promise<V | undefined> {
    // Every environment's request comes here: a hit allocates nothing.
    const hit = this.hearing.trusted ? this.fresh(id, Date.now()) : undefined;
    if (hit !== undefined) return hit;
    const found = await this.many([id], async () => {
      const value = await lookup();
      return value === undefined ? new Map<number, V>() : new Map([[id, value]]);
    });
    return found.get(id);
  }

  /** The facts of `ids`: those cached, and those `lookup` finds of the rest. Missing ones are never kept. */
  async many(ids: readonly number[], lookup: (missing: number[]) => Promise<Map<number, V>>): Promise<Map<number, V>> {
    if (!this.hearing.trusted) return lookup([...ids]);
    const now = Date.now();
    const found = new Map<number, V>();
    const missing: number[] = [];
    for (const id of ids) {
      const hit = this.fresh(id, now);
      if (hit !== undefined) found.set(id, hit);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const epoch = this.hearing.epoch;
    const read = await lookup(missing);
    // A lookup that began before a change was heard may have read what the change replaced.
    const keep = epoch === this.hearing.epoch;
    for (const [id, value] of read) {
      found.set(id, value);
      if (keep) this.remember(id, value, now);
    }
    return found;
  }

  /** Drops every fact of the project. */
  drop(projectId: number): void {
    for (const [id, entry] of this.entries) if (this.projectOf(entry.value) === projectId) this.entries.delete(id);
  }

  clear(): void {
    this.entries.clear();
  }

  private fresh(id: number, now: number): V | undefined {
    const entry = this.entries.get(id);
    return entry && entry.expires > now ? entry.value : undefined;
  }

  private remember(id: number, value: V, now: number): void {
    if (this.entries.size >= MAX_CACHED) this.entries.clear();
    this.entries.set(id, { value, expires: now + PROJECT_CACHE_MS });
  }
}

/**
 * What requests read of projects on every call, kept for a second: the placement of an environment
 * (which organization it belongs to, before any tenant data is read: one statement in two or three
 * of a request under load) and a project's brief form (the name a record embedding it shows).
 * Only found facts are kept (one created a moment ago in another process is found at once), and
 * only while the cache follows a pub/sub on which changes are announced: without one, every
 * lookup goes to the database.
 */
export class ProjectCache implements Hearing {
  /** Counts the changes heard: a lookup that began before one must not store what it read. */
  epoch = 0;
  /**
   * Whether announcements are heard: `subscribing` from the first follow() (so a cache subscribes
   * once), `on` once the pub/sub delivers them; facts are cached only then.
   */
  private listening: 'off' | 'subscribing' | 'on' = 'off';
  readonly placements = new ProjectFacts<EnvironmentPlacement>((placement) => placement.project_id, this);
  readonly briefs = new ProjectFacts<ProjectBrief>((brief) => brief.id, this);

  get trusted(): boolean {
    return this.listening === 'on';
  }

  /** Drops what is cached of a project (in this process, before its announcement arrives). */
  forget(projectId: number): void {
    this.epoch += 1;
    this.placements.drop(projectId);
    this.briefs.drop(projectId);
  }

  /**
   * Follows the announcements of `pubsub`; from then on, facts are cached. Once per cache. After
   * events were lost (the pub/sub's connection dropped), everything cached is forgotten.
   */
  async follow(pubsub: PubSub): Promise<void> {
    if (this.listening !== 'off') return;
    this.listening = 'subscribing';
    const changes = resubscribing<ProjectChange>(pubsub, PROJECT_CHANGES_TOPIC, () => this.forgetAll());
    await pubsub.ready();
    this.listening = 'on';
    void (async () => {
      for await (const { payload } of changes) this.forget(payload.project_id);
    })()
      .catch(() => undefined)
      // The subscription ended or failed: announcements are no longer heard, so nothing is trusted.
      .finally(() => {
        this.listening = 'off';
        this.forgetAll();
      });
  }

  private forgetAll(): void {
    this.epoch += 1;
    this.placements.clear();
    this.briefs.clear();
  }
}

const caches = new WeakMap<object, ProjectCache>();

/**
 * The project cache of one database's ORM (its driver, which every forked EntityManager shares):
 * a process can serve several databases (tests do), whose ids mean different things.
 */
export function projectCacheOf(driver: object): ProjectCache {
  let cache = caches.get(driver);
  if (!cache) caches.set(driver, (cache = new ProjectCache()));
  return cache;
}

/** Announces that a project went, moved or was renamed (after the commit): every process forgets it. */
export async function announceProjectChange(pubsub: PubSub | undefined, driver: object, projectId: number): Promise<void> {
  projectCacheOf(driver).forget(projectId);
  await pubsub?.publish(PROJECT_CHANGES_TOPIC, { project_id: projectId } satisfies ProjectChange);
}
