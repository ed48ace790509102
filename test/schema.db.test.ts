import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { compose, readSupergraphConfig } from '../schema/compose.js';
import { generatedArtefacts } from '../schema/artefacts.js';
import { subgraphs } from '../subgraphs/index.js';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { migrate } from '../subgraphs/shared/db/migrate.js';
import { openOrm } from '../subgraphs/shared/db/orm.js';
import { createLogger } from '../subgraphs/shared/logger.js';

describe('generated schema artefacts', () => {
  it('match what the code generates (run `npm run schema:emit` after changing a schema)', async () => {
    const artefacts = await generatedArtefacts();
    expect(Object.keys(artefacts).sort()).toEqual([
      'schema/api.graphql',
      'schema/openapi.json',
      'schema/subgraphs/accounts.graphql',
      'schema/subgraphs/batch-exports.graphql',
      'schema/subgraphs/conversations.graphql',
      'schema/subgraphs/customer-profiles.graphql',
      'schema/subgraphs/endpoints.graphql',
      'schema/subgraphs/ingestion.graphql',
      'schema/subgraphs/llm-analytics.graphql',
      'schema/subgraphs/projects.graphql',
      'schema/supergraph.graphql',
    ]);
    for (const [file, text] of Object.entries(artefacts)) {
      expect(readFileSync(resolve(file), 'utf8'), `${file} is stale`).toBe(text);
    }
  });

  it('start with the do-not-edit line', () => {
    for (const file of ['schema/api.graphql', 'schema/supergraph.graphql', 'schema/subgraphs/accounts.graphql']) {
      expect(readFileSync(resolve(file), 'utf8').split('\n')[0]).toMatch(/generated .* do not edit/);
    }
  });

  it('supergraph.yaml lists every subgraph of the registry, in rover\'s format', () => {
    const config = readSupergraphConfig();
    expect(config.map((entry) => entry.name).sort()).toEqual(subgraphs.map((subgraph) => subgraph.name).sort());
    for (const entry of config) {
      expect(entry.routing_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
      expect(entry.file).toBe(`./schema/subgraphs/${entry.name}.graphql`);
    }
  });

  it('composition fails loudly on a conflict between subgraphs', () => {
    expect(() =>
      compose([
        { name: 'a', url: 'http://a', sdl: 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"]) type Query { x: Int }' },
        { name: 'b', url: 'http://b', sdl: 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"]) type Query { x: String }' },
      ]),
    ).toThrow(/composition failed/);
  });

  it('keeps internal fields out of the public API', () => {
    const api = readFileSync(resolve('schema/api.graphql'), 'utf8');
    expect(api).not.toMatch(/_authenticate_personal_api_key|_actor_memberships|_entities|_service/);
  });
});

describe('migrations', () => {
  const log = createLogger('silent');
  const scratch: string[] = [];
  afterAll(async () => {
    await Promise.all(scratch.map((url) => dropDatabase(url)));
  });

  it.each(subgraphs.map((subgraph) => [subgraph.name, subgraph] as const))(
    '%s: the committed migrations build exactly what the entities describe',
    async (_name, subgraph) => {
      const url = await createScratchDatabase(inject('databaseUrl'), 'migration_check');
      scratch.push(url);
      const orm = await openOrm(subgraph, url, 2);
      try {
        await migrate(subgraph, orm, log);
        const needed = await orm.getMigrator().checkMigrationNeeded();
        expect(needed, `entities of ${subgraph.name} need a migration: run npm run db:migration:create`).toBe(false);
        const { rows } = await orm.em.getConnection().execute<{ schema_name: string }[]>(
          `select schema_name from information_schema.schemata where schema_name = ?`,
          [subgraph.name.replace(/-/g, '_')],
          'all',
        ).then((rows) => ({ rows }));
        expect(rows).toHaveLength(1);
      } finally {
        await orm.close();
      }
    },
  );

  it('projects: an upgraded database indexes the changes logged before setting_changes existed', async () => {
    const projects = subgraphs.find((subgraph) => subgraph.name === 'projects')!;
    const url = await createScratchDatabase(inject('databaseUrl'), 'migration_upgrade');
    scratch.push(url);
    const orm = await openOrm(projects, url, 2);
    try {
      const [first] = projects.migrations;
      await orm.getMigrator().up({ migrations: [first!.name!] });
      const connection = orm.em.getConnection();
      await connection.execute(`insert into projects.activity_log (organization_id, project_id, environment_id, scope, activity, item_name, changes, created_at)
        values (gen_random_uuid(), 1, 1, 'Team', 'updated', 'Default project', '[{"type":"Team","action":"changed","field":"timezone","before":"UTC","after":"Asia/Tokyo"},{"type":"Team","action":"changed","field":"anonymize_ips","before":false,"after":true}]', now()),
               (gen_random_uuid(), 1, null, 'Project', 'updated', 'Default project', '[{"type":"Project","action":"changed","field":"name","before":"a","after":"b"}]', now())`);
      await migrate(projects, orm, log);
      const rows = await connection.execute('select environment_id, field, action, before, position from projects.setting_changes order by position');
      expect(rows).toEqual([
        { environment_id: 1, field: 'timezone', action: 'changed', before: 'UTC', position: 0 },
        { environment_id: 1, field: 'anonymize_ips', action: 'changed', before: false, position: 1 },
      ]);
    } finally {
      await orm.close();
    }
  });
});
