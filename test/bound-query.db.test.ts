import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projects } from '../subgraphs/projects/index.js';
import { executeBound } from '../subgraphs/shared/db/bound-query.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';

let orm: MikroORM;

// One pooled connection: every statement below meets what the ones before it prepared.
beforeAll(async () => {
  orm = await MikroORM.init(ormOptions(projects, inject('databaseUrl'), 1));
});
afterAll(() => orm?.close());

const prepared = (em: MikroORM['em']) => executeBound<{ name: string; statement: string }>(em, 'select name, statement from pg_prepared_statements order by name', []);

describe(executeBound.name, () => {
  it('sends values apart from the text, and prepares a named statement once per connection', async () => {
    const em = orm.em.fork();
    const sql = 'select ?::int + 1 as next, ?::text as echoed';
    expect(await executeBound(em, sql, [41, "it's; -- not SQL"], 'bound_query_test')).toEqual([{ next: 42, echoed: "it's; -- not SQL" }]);
    expect(await executeBound(em, sql, [1, 'again'], 'bound_query_test')).toEqual([{ next: 2, echoed: 'again' }]);
    const statements = await prepared(em);
    expect(statements.filter(({ name }) => name === 'bound_query_test')).toEqual([{ name: 'bound_query_test', statement: 'select $1::int + 1 as next, $2::text as echoed' }]);
  });

  it('prepares nothing without a name, and runs in the EntityManager\'s transaction', async () => {
    const before = (await prepared(orm.em.fork())).length;
    expect(await executeBound(orm.em.fork(), 'select ?::int as one', [1])).toEqual([{ one: 1 }]);
    expect((await prepared(orm.em.fork())).length).toBe(before);
    await orm.em.fork().transactional(async (em) => {
      await executeBound(em, "set local application_name = 'bound-query-test'", []);
      expect(await executeBound(em, 'select current_setting(?) as name', ['application_name'], 'bound_query_setting')).toEqual([{ name: 'bound-query-test' }]);
    });
    expect(await executeBound(orm.em.fork(), 'select current_setting(?) as name', ['application_name'], 'bound_query_setting')).not.toEqual([{ name: 'bound-query-test' }]);
  });
});
