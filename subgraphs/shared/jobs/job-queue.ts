import PgBoss from 'pg-boss';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';

/** The PostgreSQL schema of the job tables (pg-boss makes and migrates it on start). */
export const JOB_SCHEMA = 'job_queue';

export interface JobOptions {
  /** Not before then (a Date) or that many seconds from now. */
  startAfter?: Date | number;
  /** Tries after the first, with exponential backoff from `retryDelaySeconds`. */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** A job still active after this long is taken to have died with its process and is tried again. */
  expireInSeconds?: number;
  /**
   * On a queue worked with `dedupe`, a job not yet started with this key makes another send of it
   * a no-op (null): a sweep may queue work again without piling copies up.
   */
  singletonKey?: string;
}

export interface WorkOptions {
  /** Jobs at once in this process (1). */
  concurrency?: number;
  /** Queued jobs are unique by their `singletonKey` (pg-boss's `short` policy). */
  dedupe?: boolean;
}

export type JobHandler<T> = (data: T, job: { id: string; queue: string }) => Promise<void>;

/**
 * The durable job queue every subgraph shares (materialized endpoints, batch exports): jobs are
 * rows of PostgreSQL, taken by one worker each (`SKIP LOCKED`), retried with backoff, and tried
 * again when the process that held one died. One pg-boss instance per database and process,
 * opened by the first user and stopped with the last.
 */
export interface JobQueue {
  /** Makes the queue if needed and works its jobs in this process, `concurrency` at a time. */
  work<T extends object>(queue: string, handler: JobHandler<T>, options?: WorkOptions): Promise<void>;
  send<T extends object>(queue: string, data: T, options?: JobOptions): Promise<string | null>;
  /** Runs `handler` on a cron schedule (UTC), once per occurrence across every process. */
  every(queue: string, cron: string, handler: JobHandler<object>): Promise<void>;
  /** Works the jobs of a queue that are due now, in the caller's turn, and waits for those this process works (tests; a drain before stop). */
  drain(queue: string): Promise<void>;
  /** Jobs of a queue not yet done (created, retrying or active). */
  pending(queue: string): Promise<number>;
  close(): Promise<void>;
}

interface Shared {
  boss: PgBoss;
  started: Promise<PgBoss>;
  users: number;
  handlers: Map<string, JobHandler<object>>;
  /** Jobs this process is working, by queue: what a drain waits for besides the jobs due. */
  active: Map<string, number>;
  /** Queue creations, one at a time: pg-boss makes a table partition for each, and two at once deadlock. */
  creating: Promise<unknown>;
}

const shared = new Map<string, Shared>();

export async function openJobQueue(orm: Orm, log: Logger): Promise<JobQueue> {
  const url = orm.config.get('clientUrl')!;
  let entry = shared.get(url);
  if (!entry) {
    const boss = new PgBoss({ connectionString: url, schema: JOB_SCHEMA, max: 4, pollingIntervalSeconds: 1, application_name: 'analytics-jobs' });
    boss.on('error', (error) => log.error({ err: error }, 'job queue error'));
    entry = { boss, started: boss.start(), users: 0, handlers: new Map(), active: new Map(), creating: Promise.resolve() };
    shared.set(url, entry);
  }
  entry.users += 1;
  const { boss, handlers } = entry;
  const mine = entry;
  try {
    await entry.started;
  } catch (error) {
    await release(url, mine);
    throw error;
  }
  const created = new Set<string>();
  const ensure = async (queue: string, dedupe = false) => {
    if (created.has(queue)) return;
    const creation = mine.creating.then(() => createQueue(boss, queue, dedupe));
    mine.creating = creation.catch(() => undefined);
    await creation;
    created.add(queue);
  };
  const run = async (queue: string, job: PgBoss.Job<object>) => {
    mine.active.set(queue, (mine.active.get(queue) ?? 0) + 1);
    try {
      await handlers.get(queue)!(job.data, { id: job.id, queue });
    } finally {
      mine.active.set(queue, mine.active.get(queue)! - 1);
    }
  };
  let closed = false;
  const jobs: JobQueue = {
    async work<T extends object>(queue: string, handler: JobHandler<T>, { concurrency = 1, dedupe = false }: WorkOptions = {}) {
      await ensure(queue, dedupe);
      handlers.set(queue, handler as JobHandler<object>);
      // pg-boss 10 works one batch at a time per worker: `concurrency` workers take one job each.
      for (let index = 0; index < concurrency; index += 1) {
        await boss.work<object>(queue, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
          await run(queue, job!);
        });
      }
    },
    async send(queue, data, options = {}) {
      await ensure(queue);
      const { startAfter, retryLimit = 3, retryDelaySeconds = 10, expireInSeconds = 900, singletonKey } = options;
      return boss.send(queue, data, { startAfter, retryLimit, retryDelay: retryDelaySeconds, retryBackoff: true, expireInSeconds, singletonKey });
    },
    async every(queue, cron, handler) {
      await jobs.work(queue, handler);
      await boss.schedule(queue, cron, {}, { tz: 'UTC' });
    },
    async drain(queue) {
      await ensure(queue);
      const deadline = Date.now() + DRAIN_TIMEOUT_MS;
      // Works what is due here and waits for what this process's polling workers hold; a job another
      // process holds is that process's to finish.
      while ((await due(boss, queue)) + (mine.active.get(queue) ?? 0) > 0) {
        const [job] = await boss.fetch<object>(queue);
        if (job) {
          try {
            await run(queue, job);
            await boss.complete(queue, job.id);
          } catch (error) {
            await boss.fail(queue, job.id, { message: (error as Error).message });
          }
        } else if (Date.now() > deadline) {
          throw new Error(`jobs of ${queue} still active after ${DRAIN_TIMEOUT_MS} ms`);
        } else {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
    },
    async pending(queue) {
      await ensure(queue);
      return boss.getQueueSize(queue, { before: 'completed' });
    },
    async close() {
      if (closed) return;
      closed = true;
      await release(url, mine);
    },
  };
  return jobs;
}

const DRAIN_TIMEOUT_MS = 60_000;

/** Makes a queue (if absent); another process making one at the same moment may deadlock it, so it is tried again. */
async function createQueue(boss: PgBoss, queue: string, dedupe: boolean): Promise<void> {
  // Making one alters the job table (a partition), so a queue that is there is left alone.
  if (await boss.getQueue(queue)) return;
  for (let attempt = 1; ; attempt++) {
    try {
      return await boss.createQueue(queue, dedupe ? { name: queue, policy: 'short' } : undefined);
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt >= 10) throw error;
      // Apart, at random: two processes that deadlocked once do not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 200));
    }
  }
}

/** Jobs of a queue that are due now (the ones being worked elsewhere are that process's to finish). */
async function due(boss: PgBoss, queue: string): Promise<number> {
  const { rows } = await boss.getDb().executeSql(
    `select count(*)::int as n from ${JOB_SCHEMA}.job where name = $1 and state in ('created', 'retry') and start_after <= now()`,
    [queue],
  );
  return (rows[0] as { n: number }).n;
}

async function release(url: string, entry: Shared): Promise<void> {
  entry.users -= 1;
  if (entry.users > 0) return;
  shared.delete(url);
  await entry.boss.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => undefined);
}

/** The job queues workers of this process open, by owner and database URL: undefined once one could not open. */
const working = new Map<string, Promise<JobQueue | undefined>>();

/**
 * Registers (or, with null, forgets) the job queue a subgraph's worker opens on a database, so
 * that its services send jobs where a worker runs. It is registered as the worker starts to open
 * it: a job sent meanwhile (a request served before the queue is open) waits for it rather than
 * being left for the worker's sweep. A process without one (a command line tool) sends nothing:
 * the worker's sweep queues what is due.
 */
export function setWorkingQueue(owner: string, databaseUrl: string, queue: Promise<JobQueue> | null): void {
  if (queue) working.set(`${owner} ${databaseUrl}`, queue.catch(() => undefined));
  else working.delete(`${owner} ${databaseUrl}`);
}

export async function workingQueue(owner: string, databaseUrl: string): Promise<JobQueue | undefined> {
  return working.get(`${owner} ${databaseUrl}`);
}
