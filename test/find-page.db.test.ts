import type { EntityName, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { conversations } from '../subgraphs/conversations/index.js';
import { Conversation, ConversationType } from '../subgraphs/conversations/conversations/conversation.entity.js';
import { customerProfiles } from '../subgraphs/customer-profiles/index.js';
import { CustomerProfileConfig, CustomerProfileScope } from '../subgraphs/customer-profiles/configs/customer-profile-config.entity.js';
import { projects } from '../subgraphs/projects/index.js';
import { ActivityLog } from '../subgraphs/projects/activity/activity-log.entity.js';
import { readPage } from '../subgraphs/shared/db/find-page.js';
import { migrate } from '../subgraphs/shared/db/migrate.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import type { SubgraphDefinition } from '../subgraphs/shared/subgraph/define.js';

// readPage writes a filter's statement once and runs it with each filter's values after: every
// read here must give what the QueryBuilder, building its own statement, gives for the same page.
const orms: MikroORM[] = [];
afterAll(() => Promise.all(orms.map((orm) => orm.close())));

async function ormOf(subgraph: SubgraphDefinition): Promise<EntityManager> {
  const orm = await MikroORM.init(ormOptions(subgraph, inject('databaseUrl'), 2));
  orms.push(orm);
  await migrate(subgraph, orm, createLogger('silent'));
  return orm.em.fork();
}

/** The page as the QueryBuilder reads it, the way readPage read every page before it kept statements. */
function builtPage<Entity extends object>(em: EntityManager, entity: EntityName<Entity>, where: FilterQuery<Entity>, window: { orderBy: QueryOrderMap<Entity>; limit: number; offset: number }) {
  return em.createQueryBuilder(entity).select('*').where(where).orderBy(window.orderBy).limit(window.limit).offset(window.offset).execute<Entity[]>('all');
}

async function expectSamePages<Entity extends object>(em: EntityManager, entity: EntityName<Entity>, where: FilterQuery<Entity>, orderBy: QueryOrderMap<Entity>) {
  for (const [limit, offset] of [[100, 0], [3, 0], [3, 3], [2, 5], [5, 1000]] as const) {
    const [rows] = await readPage(em.fork(), entity, where, { orderBy, limit, offset });
    expect(rows).toEqual(await builtPage(em.fork(), entity, where, { orderBy, limit, offset }));
  }
}

describe('readPage', () => {
  let profiles: EntityManager;
  let chats: EntityManager;
  let activity: EntityManager;
  const environments = [910_001, 910_002];

  beforeAll(async () => {
    [profiles, chats, activity] = await Promise.all([ormOf(customerProfiles), ormOf(conversations), ormOf(projects)]);
    for (const [index, environment_id] of [...environments, ...environments, ...environments, environments[0]!].entries()) {
      profiles.persist(
        Object.assign(new CustomerProfileConfig(), {
          environment_id,
          project_id: environment_id,
          scope: CustomerProfileScope.person,
          content: { blocks: [{ title: `block ${index}`, nested: [index, null, 'é'] }] },
          sidebar: index % 2 ? [] : { open: true },
          created_at: new Date(Date.UTC(2026, 0, 1 + (index % 3))),
        }),
      );
      chats.persist(
        Object.assign(new Conversation(), {
          environment_id,
          project_id: environment_id,
          user_id: 7,
          title: index % 4 === 3 ? null : `chat ${index}`,
          type: index % 3 === 2 ? ConversationType.tool_call : ConversationType.assistant,
          is_internal: index === 4,
          run_scopes: ['insight:read'],
          run_heartbeat_at: index % 2 ? new Date(Date.UTC(2026, 1, 1, 0, 0, index)) : null,
          updated_at: new Date(Date.UTC(2026, 1, 1 + (index % 2))),
        }),
      );
      activity.persist(
        Object.assign(new ActivityLog(), {
          organization_id: '00000000-0000-4000-8000-000000000001',
          project_id: environment_id,
          environment_id,
          scope: 'Team',
          activity: 'updated',
          item_name: `change ${index}`,
        }),
      );
    }
    await Promise.all([profiles.flush(), chats.flush(), activity.flush()]);
  });

  it('reads what the QueryBuilder reads: dates, JSON, nulls and the window', async () => {
    for (const environment_id of environments) {
      await expectSamePages(profiles, CustomerProfileConfig, { environment_id }, { created_at: 'desc', id: 'asc' });
    }
  });

  it('binds each filter its own values, operators, null tests and lists included', async () => {
    const listed = [ConversationType.assistant, ConversationType.deep_research];
    for (const environment_id of environments) {
      for (const is_internal of [false, true]) {
        const where = { environment_id, user_id: 7, title: { $ne: null }, type: { $in: listed }, is_internal };
        await expectSamePages(chats, Conversation, where, { updated_at: 'desc', id: 'asc' });
      }
      await expectSamePages(chats, Conversation, { environment_id, type: { $in: [ConversationType.tool_call] }, title: null }, { id: 'asc' });
      await expectSamePages(chats, Conversation, { environment_id, run_heartbeat_at: { $gt: new Date(Date.UTC(2026, 1, 1, 0, 0, 3)) } }, { id: 'desc' });
    }
  });

  it('matches nothing, as the QueryBuilder does, for a number too large for the column', async () => {
    await expectSamePages(profiles, CustomerProfileConfig, { environment_id: 99_999_999_999 }, { created_at: 'desc', id: 'asc' });
    const [rows, count] = await readPage(profiles.fork(), CustomerProfileConfig, { environment_id: 99_999_999_999 }, { orderBy: { id: 'asc' }, limit: 10, offset: 0 });
    expect([rows, count]).toEqual([[], 0]);
  });

  it('reads bigint keys as the QueryBuilder maps them (text)', async () => {
    const [rows] = await readPage(activity.fork(), ActivityLog, { project_id: environments[1]! }, { orderBy: { id: 'desc' }, limit: 100, offset: 0 });
    expect(rows.length).toBeGreaterThan(0);
    expect(typeof rows[0]!.id).toBe('string');
    await expectSamePages(activity, ActivityLog, { project_id: environments[1]! }, { id: 'desc' });
  });

  it('counts the whole list only when the page does not end it', async () => {
    const where = { environment_id: environments[0]! };
    const total = await profiles.fork().count(CustomerProfileConfig, where);
    expect((await readPage(profiles.fork(), CustomerProfileConfig, where, { orderBy: { id: 'asc' }, limit: 2, offset: 0 }))[1]).toBe(total);
    expect((await readPage(profiles.fork(), CustomerProfileConfig, where, { orderBy: { id: 'asc' }, limit: 100, offset: 1 }))[1]).toBe(total);
    expect((await readPage(profiles.fork(), CustomerProfileConfig, where, { orderBy: { id: 'asc' }, limit: 5, offset: 1000 }))[1]).toBe(total);
  });
});
