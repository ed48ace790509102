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
import { seedTenant, type Tenant } from '../../../test/kit/seed.js';

// The service asks the projects subgraph's tables where an environment lives, so the tenants are real.
let orm: MikroORM;
const pubsub = new MemoryPubSub();
let owner: Tenant;
let other: Tenant;
let environment: number;
let actor: Actor;
const actorOf = (tenant: Tenant): Actor => ({
  kind: 'personal_api_key',
  user: { id: 1, uuid: tenant.user_uuid },
  scopes: ['*'],
  organizations: { [tenant.organization_id]: 8 },
});
const service = () => new CustomerProfileConfigService(orm.em.fork(), pubsub);

beforeAll(async () => {
  [owner, other] = await Promise.all([seedTenant(inject('databaseUrl'), 'profiles-owner'), seedTenant(inject('databaseUrl'), 'profiles-other')]);
  environment = owner.environment_id;
  actor = actorOf(owner);
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

    it("answers 403 for another organization's environment and 404 for one that does not exist", async () => {
      await expect(service().create(actorOf(other), { project_id: environment, scope: CustomerProfileScope.person })).rejects.toMatchObject({
        extensions: { status: 403 },
      });
      await expect(service().create(actor, { project_id: 2_000_000_000, scope: CustomerProfileScope.person })).rejects.toMatchObject({
        extensions: { status: 404 },
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

    it('refuses a null scope as DRF does (400 null), changing nothing', async () => {
      const created = await service().create(actor, { project_id: environment, scope: CustomerProfileScope.person });
      const nulled = service().update(actor, { project_id: environment, id: created.id, scope: null as unknown as undefined, sidebar: { c: 3 } });
      await expect(nulled).rejects.toMatchObject({ extensions: { code: 'null', attr: 'scope', status: 400 } });
      expect(await service().get(actor, environment, created.id)).toMatchObject({ scope: 'person', sidebar: {} });
    });
  });

  describe('get', () => {
    it('answers 404 for a config of another environment, worded as a missing one', async () => {
      const foreign = await service().create(actorOf(other), { project_id: other.environment_id, scope: CustomerProfileScope.person });
      await expect(service().get(actor, environment, foreign.id)).rejects.toMatchObject({ message: 'Not found.', extensions: { status: 404 } });
      await expect(service().get(actor, environment, 'nope')).rejects.toMatchObject({ message: 'Not found.' });
    });
  });
});
