import { createRequire } from 'node:module';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const require = createRequire(import.meta.url);

const EVERY_TEST = ['subgraphs', 'router', 'rest-compat', 'schema', 'test'].map((folder) => `${folder}/**/*.test.ts`);
const TIERED = ['**/*.db.test.ts', '**/*.e2e.test.ts', '**/*.slow.test.ts'];
/**
 * The db suites that write or read events through the platform, run a second time with the events
 * store on ClickHouse's engine in process (test/kit/events-store.ts). A suite joins once what it
 * tests has moved to ClickHouse (docs/clickhouse.md).
 */
const EVENT_SUITES = ['ingestion-batch', 'ingestion-read', 'ingestion-profiles', 'project-deletion', 'conversations', 'endpoints', 'endpoints-hogql', 'endpoints-limits', 'endpoints-access', 'batch-exports-backfill', 'batch-exports-http', 'batch-exports-pages', 'batch-exports-postgres', 'batch-exports-s3', 'batch-exports-ssrf'].map((name) => `test/${name}.db.test.ts`);

/** A tier: the root's settings and its own files; every tier but unit gets the run's build and database. */
function tier(name: string, test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration {
  return { extends: true, test: { name, globalSetup: ['test/kit/global-setup.ts'], setupFiles: ['test/kit/setup.ts'], ...test } };
}

export default defineConfig({
  // esbuild emits no decorator metadata; type-graphql and MikroORM need it.
  plugins: [swc.vite({ jsc: { target: 'es2022', transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false } } })],
  resolve: {
    // Node loads graphql's CommonJS build for every importer; make the tests do the same, so that
    // one module instance (one GraphQLSchema class) serves our code and the libraries alike.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    // Tiers, by the name's suffix: `npm test` runs them all, `npm run test:<tier>` one alone.
    // `npm run test:unit`, `test:db` and `test:e2e` run their files one after another in each fork
    // (--no-isolate), not in a fresh process each: loading the platform's modules again for every
    // file was most of the unit and db tiers' time, and the e2e tier's collect phase. Their tests
    // keep no state between files (an e2e file kills what it started), and one that
    // reads process-wide state (the metrics registry) reads what it added. Isolation is the pool's,
    // one setting for every project at once, so `npm test` keeps it.
    projects: [
      // What needs no database, no Redis and no process: the code's rules, in under a minute.
      tier('unit', { include: EVERY_TEST, exclude: [...TIERED, ...configDefaults.exclude], globalSetup: [] }),
      // PostgreSQL and Redis, with the platform in the test's own process.
      // `npm run test:db` runs two files at a time (--maxWorkers=2; vitest's default on two cores is
      // one): a db file's stack waits on PostgreSQL part of the time. Each fork has a database of
      // its own (test/kit/fork-database.ts), as the platform's background work takes whatever its
      // database holds. The e2e tier keeps one: its platforms' start-up and shutdown timings do not
      // survive a second platform beside them on two cores.
      tier('db', { include: ['**/*.db.test.ts'] }),
      // The event suites again, their events in ClickHouse (chDB) instead of PostgreSQL.
      tier('db-clickhouse', { include: EVENT_SUITES, env: { TEST_EVENTS_STORE: 'clickhouse' } }),
      // The built platform started as its users start it: processes, ports, signals.
      tier('e2e', { include: ['**/*.e2e.test.ts'] }),
      // Generated requests by the thousand and a real browser.
      tier('slow', { include: ['**/*.slow.test.ts'] }),
    ],
  },
});
