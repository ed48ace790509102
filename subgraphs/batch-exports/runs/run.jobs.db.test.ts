import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { batchExports } from '../index.js';
import { JOB_OWNER, queueRun, RUN_QUEUE } from './run.jobs.js';
import { startBatchExportWorker } from '../schedule/schedule.worker.js';
import { parseConfig } from '../../shared/config.js';
import { createScratchDatabase, dropDatabase } from '../../shared/db/database.js';
import { openOrm, type Orm } from '../../shared/db/orm.js';
import { JOB_SCHEMA, workingQueue } from '../../shared/jobs/job-queue.js';
import { createLogger } from '../../shared/logger.js';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import { sql } from '../../../test/kit/db.js';
import { TEST_SECRET_KEY } from '../../../test/kit/secret.js';

/**
 * The shared job queue as a worker's services meet it: a process serves requests before its
 * workers' queue is open (a new worker of the cluster, a fresh database where pg-boss makes its
 * tables first), and what those requests queue must not wait for the sweep.
 */
describe('the shared job queue', () => {
  let databaseUrl: string;
  let orm: Orm;

  beforeAll(async () => {
    databaseUrl = await createScratchDatabase(inject('databaseUrl'), 'job_queue');
    orm = await openOrm(batchExports, databaseUrl);
  });
  afterAll(async () => {
    await orm?.close(true);
    // Its own database, not the run's: left behind, every run would add one to the server.
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  it('keeps a job sent while the worker is still opening its queue, and sends nothing where no worker runs', async () => {
    const config = parseConfig({ DATABASE_URL: databaseUrl, SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: mkdtempSync(join(tmpdir(), 'job-queue-')) });
    const idle = crypto.randomUUID();
    await queueRun(databaseUrl, idle);
    expect(await workingQueue(JOB_OWNER, databaseUrl)).toBeUndefined();

    const worker = startBatchExportWorker({ orm, log: createLogger('silent'), config, pubsub: new MemoryPubSub() });
    const early = crypto.randomUUID();
    try {
      // At once, before pg-boss has made its schema in this fresh database.
      await queueRun(databaseUrl, early);
      const jobs = await sql<{ run: string }>(databaseUrl, `select data->>'runId' as run from ${JOB_SCHEMA}.job where name = $1`, [RUN_QUEUE]);
      expect(jobs.map((job) => job.run)).toEqual([early]);
    } finally {
      await worker.stop();
    }
    expect(await workingQueue(JOB_OWNER, databaseUrl)).toBeUndefined();
  });
});
