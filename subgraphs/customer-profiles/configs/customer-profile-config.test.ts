import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Actor } from '../../shared/auth/actor.js';
import { ormOptions } from '../../shared/db/orm.js';
import { migrate } from '../../shared/db/migrate.js';
import { createLogger } from '../../shared/logger.js';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import { customerProfiles } from '../index.js';
import { CustomerProfileScope } from './customer-profile-config.entity.js';
import { changesTopic } from './customer-profile-config.event.js';
import { CustomerProfileConfigService, MAX_LAYOUT_BYTES } from './customer-profile-config.service.js';

let orm: MikroORM;
const pubsub = new MemoryPubSub();
// Environment ids far from what seeded tenants get, so this suite shares the database safely.
const environment = 900_000 + Math.floor(Math.random() * 50_000);
const actorFor = (environmentId: number): Actor => ({
  kind: 'personal_api_key',
  user: { id: 1, uuid: 'u' },
  scopes: ['*'],
  organizations: { org: 8 },
  environments: { [String(environmentId)]: { project_id: environmentId, organization_id: 'org' } },
});
const actor = actorFor(environment);
const service = () => new CustomerProfileConfigService(orm.em.fork(), pubsub);

beforeAll(async () => {
  orm = await MikroORM.init(ormOptions(customerProfiles, inject('databaseUrl'), 2));
  await migrate(customerProfiles, orm, createLogger('silent'));
});
afterAll(() => orm?.close());

describe(CustomerProfileConfigService.name, () => {
  describe('create', () => {
    it('stores objects and arrays, and {} for null', async () => {
      const config = await service().create(actor, { project_id: environment, scope: CustomerProfileScope.group_4, content: [1], sidebar: null });
      expect(config).toMatchObject({ environment_id: environment, project_id: environment, scope: 'group_4', content: [1], sidebar: {} });
    });

    it.each([['text'], [42], [true]])('refuses %j as content with attr content', async (content) => {
      await expect(service().create(actor, { project_id: environment, scope: CustomerProfileScope.person, content })).rejects.toMatchObject({
        extensions: { attr: 'content', status: 400 },
      });
    });

    it('refuses a layout over the size limit', async () => {
      const sidebar = { blob: 'x'.repeat(MAX_LAYOUT_BYTES) };
      await expect(service().create(actor, { project_id: environment, scope: CustomerProfileScope.person, sidebar })).rejects.toMatchObject({
        extensions: { attr: 'sidebar', code: 'max_length' },
      });
    });

    it('answers 403 for an environment the actor does not reach', async () => {
      await expect(service().create(actorFor(environment + 1), { project_id: environment, scope: CustomerProfileScope.person })).rejects.toMatchObject({
        extensions: { status: 403 },
      });
    });
  });

  describe('update', () => {
    it('changes only the given fields and publishes the change', async () => {
      const events = pubsub.subscribe(changesTopic(environment));
      const created = await service().create(actor, { project_id: environment, scope: CustomerProfileScope.person, content: { a: 1 } });
      const updated = await service().update(actor, { project_id: environment, id: created.id, sidebar: { b: 2 } });
      expect(updated).toMatchObject({ scope: 'person', content: { a: 1 }, sidebar: { b: 2 } });
      const first = (await events.next()).value;
      const second = (await events.next()).value;
      expect([first.payload.action, second.payload.action]).toEqual(['created', 'updated']);
      expect(second.sequence).toBe(first.sequence + 1);
      await events.return!();
    });
  });

  describe('get', () => {
    it('answers 404 for a config of another environment, worded as a missing one', async () => {
      const other = environment + 2;
      const foreign = await service().create(actorFor(other), { project_id: other, scope: CustomerProfileScope.person });
      await expect(service().get(actor, environment, foreign.id)).rejects.toMatchObject({ message: 'Not found.', extensions: { status: 404 } });
      await expect(service().get(actor, environment, 'nope')).rejects.toMatchObject({ message: 'Not found.' });
    });
  });
});
