import pg from 'pg';

/** Sequences a floor covers ahead of use: one PostgreSQL write per this many events of a topic. */
export const FLOOR_BLOCK = 1000;

/** PostgreSQL's schema of the floors: the pub/sub's, not a subgraph's (every subgraph publishes). */
const SCHEMA = 'pubsub';
const CREATE_LOCK_ID = 0x70756273; // what two processes starting at once take to create the table one at a time

/**
 * The high-water marks of topic sequences, in PostgreSQL: Redis numbers the events, but a Redis
 * that restarts without its data would number from 1 again, and a client that orders or
 * de-duplicates by sequence would throw the new events away. No sequence is issued above its
 * topic's floor, so a counter seeded from the floor continues above every sequence issued before.
 * The table is made on first use (the kit has no migrations of its own, as pg-boss's tables).
 */
export class SequenceFloors {
  private readonly pool: pg.Pool;
  private created?: Promise<void>;

  constructor(databaseUrl: string) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 2, connectionTimeoutMillis: 5000, idleTimeoutMillis: 10_000 });
    // An idle connection that PostgreSQL drops is replaced at the next use; the drop is no crash.
    this.pool.on('error', () => undefined);
  }

  /** Raises the floor of `topic` to at least `atLeast`; answers the floor now. */
  async raise(topic: string, atLeast: number): Promise<number> {
    await this.table();
    const { rows } = await this.pool.query<{ floor: string }>(
      `insert into ${SCHEMA}.sequence_floors as f (topic, floor) values ($1, $2)
        on conflict (topic) do update set floor = greatest(f.floor, excluded.floor) returning floor`,
      [topic, atLeast],
    );
    return Number(rows[0]!.floor);
  }

  /**
   * A block of sequences above everything issued on `topic` before, for a counter that Redis no
   * longer holds: the counter goes on from `from`, and may issue up to `floor`. One atomic step,
   * so two publishers seeding at once, or a floor raised meanwhile, never hand out a number twice.
   */
  async reserve(topic: string): Promise<{ from: number; floor: number }> {
    await this.table();
    const { rows } = await this.pool.query<{ floor: string }>(
      `insert into ${SCHEMA}.sequence_floors as f (topic, floor) values ($1, $2)
        on conflict (topic) do update set floor = f.floor + $2 returning floor`,
      [topic, FLOOR_BLOCK],
    );
    const floor = Number(rows[0]!.floor);
    return { from: floor - FLOOR_BLOCK, floor };
  }

  async close(): Promise<void> {
    if (this.pool.ending) return;
    await this.pool.end();
  }

  private table(): Promise<void> {
    this.created ??= this.create().catch((error: unknown) => {
      this.created = undefined;
      throw error;
    });
    return this.created;
  }

  private async create(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock($1)', [CREATE_LOCK_ID]);
      await client.query(`create schema if not exists ${SCHEMA}`);
      await client.query(`create table if not exists ${SCHEMA}.sequence_floors (topic text primary key, floor bigint not null)`);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
