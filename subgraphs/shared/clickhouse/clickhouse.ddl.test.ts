import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { ClickHouseDdl, quoteIdentifier, quoteString } from './clickhouse.ddl.js';
import { parseClickHouseUrl } from './clickhouse-url.js';

const TABLE = { name: 'events', columns: ['uuid UUID', 'distinct_id String'], version: '_timestamp', orderBy: '(uuid)', partitionBy: 'toYYYYMM(timestamp)', shardBy: 'sipHash64(distinct_id)' };

describe('parseClickHouseUrl', () => {
  it('reads a server URL with its credentials and database, and chdb: with its directory', () => {
    expect(parseClickHouseUrl('https://alice:s%40cret@ch.example:8443/analytics')).toEqual({ kind: 'http', url: 'https://ch.example:8443', username: 'alice', password: 's@cret', database: 'analytics' });
    expect(parseClickHouseUrl('http://ch:8123')).toMatchObject({ username: 'default', password: '', database: 'default' });
    expect(parseClickHouseUrl('chdb:/var/lib/events')).toEqual({ kind: 'chdb', path: '/var/lib/events', database: 'default' });
    expect(parseClickHouseUrl('chdb:./data?database=run_1')).toEqual({ kind: 'chdb', path: './data', database: 'run_1' });
  });

  it('refuses what names no ClickHouse', () => {
    for (const bad of ['ftp://ch/x', 'chdb:', 'chdb:/x?path=y', 'http://ch/bad-name', 'not a url']) expect(() => parseClickHouseUrl(bad), bad).toThrow();
  });
});

describe('CLICKHOUSE_URL in the configuration', () => {
  const base = { SECRET_KEY: 'x'.repeat(32) };

  it('runs one worker with chdb: unless told more, and refuses more with one line naming both settings', () => {
    expect(parseConfig({ ...base, CLICKHOUSE_URL: 'chdb:/tmp/x' }).WORKERS).toBe(1);
    expect(() => parseConfig({ ...base, CLICKHOUSE_URL: 'chdb:/tmp/x', WORKERS: '2' })).toThrow(/^invalid setting WORKERS: must be 1 with CLICKHOUSE_URL=chdb:/);
    expect(parseConfig({ ...base, CLICKHOUSE_URL: 'http://ch:8123/db', WORKERS: '3' }).WORKERS).toBe(3);
  });

  it('refuses a bad URL and a cluster without a server', () => {
    expect(() => parseConfig({ ...base, CLICKHOUSE_URL: 'mysql://x' })).toThrow(/^invalid setting CLICKHOUSE_URL: /);
    expect(() => parseConfig({ ...base, CLICKHOUSE_CLUSTER: 'events' })).toThrow(/^invalid setting CLICKHOUSE_CLUSTER: /);
    expect(() => parseConfig({ ...base, CLICKHOUSE_URL: 'http://ch:8123/db', CLICKHOUSE_CLUSTER: 'a b' })).toThrow(/^invalid setting CLICKHOUSE_CLUSTER: /);
  });
});

describe(ClickHouseDdl.name, () => {
  it('makes one ReplacingMergeTree on a server, with a deduplication window for retried inserts', () => {
    expect(new ClickHouseDdl('posthog').replacingTable(TABLE)).toEqual([
      "CREATE TABLE IF NOT EXISTS posthog.events (uuid UUID, distinct_id String) ENGINE = ReplacingMergeTree(_timestamp) PARTITION BY toYYYYMM(timestamp) ORDER BY (uuid) SETTINGS non_replicated_deduplication_window = 10000",
    ]);
  });

  it('makes Replicated tables per shard under a Distributed one on a cluster, every statement ON CLUSTER', () => {
    const ddl = new ClickHouseDdl('posthog', 'events_cluster');
    expect(ddl.replacingTable(TABLE)).toEqual([
      "CREATE TABLE IF NOT EXISTS posthog.sharded_events ON CLUSTER events_cluster (uuid UUID, distinct_id String) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/posthog.sharded_events', '{replica}', _timestamp) PARTITION BY toYYYYMM(timestamp) ORDER BY (uuid) SETTINGS replicated_deduplication_window = 10000",
      'CREATE TABLE IF NOT EXISTS posthog.events ON CLUSTER events_cluster AS posthog.sharded_events ENGINE = Distributed(events_cluster, posthog, sharded_events, sipHash64(distinct_id))',
    ]);
    // Tables events are joined with are whole on every node: one replica path for all.
    expect(ddl.replacingTable({ ...TABLE, name: 'person', shardBy: undefined })[0]).toContain("ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/posthog.person', '{replica}', _timestamp)");
    expect(ddl.storageOf(TABLE)).toBe('posthog.sharded_events');
    expect(ddl.modifySettings(TABLE, { fsync_after_insert: 1 })).toBe('ALTER TABLE posthog.sharded_events ON CLUSTER events_cluster MODIFY SETTING fsync_after_insert = 1');
    expect(ddl.addColumn(TABLE, 'mat_x String')).toEqual([
      'ALTER TABLE posthog.sharded_events ON CLUSTER events_cluster ADD COLUMN IF NOT EXISTS mat_x String',
      'ALTER TABLE posthog.events ON CLUSTER events_cluster ADD COLUMN IF NOT EXISTS mat_x String',
    ]);
    expect(ddl.commentColumn(TABLE, 'mat_$x', "it's")).toEqual([
      "ALTER TABLE posthog.sharded_events ON CLUSTER events_cluster COMMENT COLUMN `mat_$x` 'it\\'s'",
      "ALTER TABLE posthog.events ON CLUSTER events_cluster COMMENT COLUMN `mat_$x` 'it\\'s'",
    ]);
    // A mutation rewrites the parts that hold the rows: the shards' tables.
    expect(ddl.materializeColumn(TABLE, 'mat_$x')).toBe('ALTER TABLE posthog.sharded_events ON CLUSTER events_cluster MATERIALIZE COLUMN `mat_$x`');
    expect(new ClickHouseDdl('posthog').materializeColumn(TABLE, 'mat_$x')).toBe('ALTER TABLE posthog.events MATERIALIZE COLUMN `mat_$x`');
  });

  it('quotes any text as a string literal or an identifier', () => {
    expect(quoteString("a'b\\c")).toBe("'a\\'b\\\\c'");
    expect(quoteIdentifier('mat_`x\\')).toBe('`mat_\\`x\\\\`');
  });
});
