import fc from 'fast-check';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Actor } from '../../shared/auth/actor.js';
import { migrate } from '../../shared/db/migrate.js';
import { ormOptions } from '../../shared/db/orm.js';
import { createLogger } from '../../shared/logger.js';
import { EnvironmentService } from '../environments/environment.service.js';
import { projects } from '../index.js';
import { OrganizationService } from '../organizations/organization.service.js';
import { ProjectService } from '../projects/project.service.js';
import { SETTING_NAMES } from './setting.catalog.js';
import { instant, SettingsHistoryService } from './settings-history.service.js';

let orm: MikroORM;

beforeAll(async () => {
  orm = await MikroORM.init(ormOptions(projects, inject('databaseUrl'), 2));
  await migrate(projects, orm, createLogger('silent'));
});
afterAll(() => orm?.close());

/** A fresh organization, project and environment, and an owner actor for them. */
async function freshEnvironment(): Promise<{ actor: Actor; id: number }> {
  const em = orm.em.fork();
  const organization = await new OrganizationService(em).create('History');
  const { environment } = await new ProjectService(em).createWithEnvironment(organization.id, 'History project');
  const actor: Actor = {
    kind: 'personal_api_key',
    user: { id: 1, uuid: 'u' },
    scopes: ['*'],
    organizations: { [organization.id]: 15 },
  };
  return { actor, id: environment.id };
}

const later = () => new Promise((resolve) => setTimeout(resolve, 3));

/** A change to one of a few settings of different kinds, with values valid for each. */
const change = fc.oneof(
  fc.record({ timezone: fc.constantFrom('UTC', 'Europe/Paris', 'Asia/Tokyo', 'America/New_York') }),
  fc.record({ anonymize_ips: fc.boolean() }),
  fc.record({ week_start_day: fc.constantFrom(0, 1, null) }),
  fc.record({ app_urls: fc.array(fc.webUrl(), { maxLength: 3 }) }),
  fc.record({ session_recording_sample_rate: fc.constantFrom('0.10', '0.50', '1.00', null) }),
  fc.record({ correlation_config: fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }) }),
  fc.record({ base_currency: fc.constantFrom('USD', 'EUR', 'JPY') }),
);

describe(SettingsHistoryService.name, () => {
  it('rebuilds exactly the settings of every instant of a random history', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 12 }), async (changes) => {
        const { actor, id } = await freshEnvironment();
        const history = new SettingsHistoryService(orm.em.fork());
        const snapshots: { at: Date; settings: Record<string, unknown> }[] = [];
        const first = await new EnvironmentService(orm.em.fork()).get(actor, { id });
        snapshots.push({ at: new Date(), settings: pick(first) });
        for (const written of changes) {
          await later();
          const record = await new EnvironmentService(orm.em.fork()).update(actor, { id, ...written });
          snapshots.push({ at: new Date(), settings: pick(record) });
        }
        for (const { at, settings } of snapshots) {
          expect(await history.asOf(actor, { id, at: at.toISOString() })).toEqual(settings);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('filters by scope keys, unknown ones null, repeated or comma-separated', async () => {
    const { actor, id } = await freshEnvironment();
    await new EnvironmentService(orm.em.fork()).update(actor, { id, timezone: 'Asia/Tokyo' });
    const result = await new SettingsHistoryService(orm.em.fork()).asOf(actor, { id, at: new Date().toISOString(), scope: ['timezone,anonymize_ips', 'no_such_setting'] });
    expect(result).toEqual({ timezone: 'Asia/Tokyo', anonymize_ips: false, no_such_setting: null });
  });

  it('answers 403 for an environment of another organization', async () => {
    const { id } = await freshEnvironment();
    const { actor } = await freshEnvironment();
    await expect(new SettingsHistoryService(orm.em.fork()).asOf(actor, { id, at: '2026-01-01T00:00:00Z' })).rejects.toMatchObject({ extensions: { status: 403 } });
  });
});

describe(instant.name, () => {
  it.each(['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.123456+02:00', '2026-01-31 12:00:00', '2026-01-31T12:00', '2026-01-31'])('reads %s', (text) => {
    expect(Number.isNaN(instant(text).getTime())).toBe(false);
  });

  it('takes a time without a zone as UTC', () => {
    expect(instant('2026-01-31T12:00:00').toISOString()).toBe('2026-01-31T12:00:00.000Z');
  });

  it.each(['', 'yesterday', '2026-13-45T99:00:00Z', '31/01/2026'])('refuses %j with attr at', (text) => {
    expect(() => instant(text)).toThrowError(expect.objectContaining({ extensions: expect.objectContaining({ attr: 'at', status: 400 }) }));
  });
});

function pick(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, record[name]]));
}
