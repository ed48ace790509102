import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from './kit/db.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;

beforeAll(async () => {
  // Starting the platform migrates the database.
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => stack?.stop());

describe('the HogQL query views', () => {
  it('run with the caller\'s rights and are security barriers: no condition of a query is evaluated before their team filter', async () => {
    const views = await sql<{ name: string; options: string[] }>(
      inject('databaseUrl'),
      "select c.relname as name, c.reloptions as options from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'ingestion' and c.relkind = 'v' and c.relname like 'hogql\\_%' order by c.relname",
    );
    expect(views.map((view) => view.name)).toEqual(['hogql_events', 'hogql_groups', 'hogql_person_distinct_ids', 'hogql_persons']);
    for (const view of views) expect(view.options).toEqual(expect.arrayContaining(['security_invoker=true', 'security_barrier=true']));
  });
});
