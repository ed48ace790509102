import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, inject } from 'vitest';
import { migrate } from '../../subgraphs/shared/db/migrate.js';
import { openOrm } from '../../subgraphs/shared/db/orm.js';
import { createLogger } from '../../subgraphs/shared/logger.js';
import type { SubgraphDefinition } from '../../subgraphs/shared/subgraph/define.js';

/**
 * One subgraph's ORM on the run's database, its migrations applied: what an in-process service test
 * stands on. Call it at the top of the file: the ORM opens before the file's tests and closes after
 * them, and the answer gives it to the tests.
 */
export function subgraphOrm(subgraph: SubgraphDefinition): () => MikroORM {
  let orm: MikroORM | undefined;
  beforeAll(async () => {
    orm = await openOrm(subgraph, inject('databaseUrl'), 2);
    await migrate(subgraph, orm, createLogger('silent'));
  });
  afterAll(() => orm?.close());
  return () => orm!;
}
