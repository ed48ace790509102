import type { EntityManager } from '@mikro-orm/postgresql';
import { ingestionFacade, type MirroredCounts } from '../../../../subgraphs/ingestion/facade.js';
import type { ClickHouse } from '../../../../subgraphs/shared/clickhouse/clickhouse.js';
import type { Logger } from '../../../../subgraphs/shared/logger.js';
import { checkCounts, type CountCheck } from './events-copy.check.js';
import { loadCheckpoint, removeCheckpoint, saveCheckpoint, type CopyCheckpoint, type EnvironmentProgress } from './events-copy.checkpoint.js';
import type { CopyOptions } from './events-copy.options.js';
import { CopyProgress } from './events-copy.progress.js';

/** The two stores of the installation: PostgreSQL's events are read, ClickHouse's written. */
export interface CopyStores {
  em: EntityManager;
  clickhouse: ClickHouse;
  /** The ClickHouse the checkpoint describes (see destinationOf). */
  destination: string;
}

/** What a copy did, printed as one JSON object when it ends. */
export interface CopySummary {
  /** Each environment's counts; empty when the copy was stopped before its end. */
  environments: (CountCheck & Work)[];
  /** Events this run read from PostgreSQL, and of them inserted (the others ClickHouse held). */
  read: number;
  inserted: number;
  seconds: number;
  events_per_second: number;
  stopped: boolean;
}

/** This run's work on one environment, the checkpoint's aside. */
interface Work {
  read: number;
  inserted: number;
  /** The mirror rows written after the events; null when an earlier run wrote them. */
  mirrored: MirroredCounts | null;
}

/**
 * Copies the environments' events one after another, each in (timestamp, uuid) order a page at a
 * time, so memory holds one page whatever the table holds. The checkpoint is saved after every
 * page (its cost is one fsync, small beside a page's insert): a run killed at any point goes on
 * after the last page saved, and the page it was inserting is looked for in ClickHouse again
 * before anything of it is inserted. Then each environment's counts are checked.
 */
export class EventsCopier {
  private stopping = false;

  constructor(
    private readonly stores: CopyStores,
    private readonly options: CopyOptions & { checkpoint: string },
    private readonly log: Logger,
  ) {}

  /** Stop after the page at work, with the checkpoint saved. */
  stop(): void {
    this.stopping = true;
  }

  async run(): Promise<CopySummary> {
    const { em } = this.stores;
    const { eventsCopy } = ingestionFacade;
    // The arguments and both stores are known good by now: only then is a checkpoint forgotten.
    if (this.options.restart) await removeCheckpoint(this.options.checkpoint);
    const checkpoint = await loadCheckpoint(this.options.checkpoint, this.stores.destination);
    const environments = this.options.environments ?? (await eventsCopy.environments(em));
    const counts = await Promise.all(environments.map((id) => eventsCopy.postgresCount(em, id)));
    const resumedAt = environments.reduce((sum, id) => sum + (checkpoint.environments[id]?.read ?? 0), 0);
    const progress = new CopyProgress(counts.reduce((sum, count) => sum + count, 0), resumedAt);
    const started = Date.now();
    const work = new Map<number, Work>();
    let done = resumedAt;
    for (const id of environments) {
      if (this.stopping) break;
      const saved = checkpoint.environments[id];
      if (saved) this.log.info({ environment: id, after: saved.after, read: saved.read }, 'resuming the environment after its checkpoint');
      work.set(id, await this.copyEnvironment(checkpoint, id, (read) => progress.update((done += read), id)));
    }
    progress.finish(done, environments.at(-1) ?? 0);
    const read = [...work.values()].reduce((sum, each) => sum + each.read, 0);
    const inserted = [...work.values()].reduce((sum, each) => sum + each.inserted, 0);
    const seconds = (Date.now() - started) / 1000;
    const summary = { read, inserted, seconds: Math.round(seconds * 10) / 10, events_per_second: Math.round(progress.rate(done)), stopped: this.stopping };
    if (this.stopping) return { environments: [], ...summary };
    const checks: CopySummary['environments'] = [];
    for (const id of environments) checks.push({ ...(await checkCounts(em, this.stores.clickhouse, id, this.options.pageSize)), ...work.get(id)! });
    return { environments: checks, ...summary };
  }

  /** Copies one environment's events after its checkpoint, telling `copied` of each page. */
  private async copyEnvironment(checkpoint: CopyCheckpoint, environmentId: number, copied: (read: number) => void): Promise<Work> {
    const { em, clickhouse } = this.stores;
    const work: Work = { read: 0, inserted: 0, mirrored: null };
    let progress: EnvironmentProgress | undefined = checkpoint.environments[environmentId];
    while (!this.stopping) {
      const page = await ingestionFacade.eventsCopy.copyPage(em, clickhouse, environmentId, progress?.after ?? null, this.options.pageSize);
      if (!page.last) break;
      progress = { after: page.last, read: (progress?.read ?? 0) + page.read, inserted: (progress?.inserted ?? 0) + page.inserted };
      checkpoint.environments[environmentId] = progress;
      await saveCheckpoint(this.options.checkpoint, checkpoint);
      work.read += page.read;
      work.inserted += page.inserted;
      copied(page.read);
    }
    if (!this.stopping && !checkpoint.mirrored?.includes(environmentId)) {
      work.mirrored = await ingestionFacade.eventsCopy.copyProfiles(em, clickhouse, environmentId, this.options.pageSize);
      checkpoint.mirrored = [...(checkpoint.mirrored ?? []), environmentId];
      await saveCheckpoint(this.options.checkpoint, checkpoint);
    }
    this.log.info({ environment: environmentId, ...work }, this.stopping ? 'copy stopped' : 'environment copied');
    return work;
  }
}
