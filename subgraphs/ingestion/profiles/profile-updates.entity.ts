import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import type { EventKey } from '../events/event-store.ports.js';
import type { ProfileEntry } from './profile-entry.js';
import type { ProfileMirror } from './profile-mirror.queue.js';

/**
 * The person and group changes of one committed batch, waiting for the profile worker. Written in
 * the batch's transaction, so a batch that got its 200 has them (on ClickHouse, no longer awaiting
 * the batch's insert); deleted in the transaction that applies them. Where events live on ClickHouse, a row may instead hold the rows a pass wrote
 * (`mirror`), waiting to be written to ClickHouse's mirror tables (`profile-mirror.queue.ts`).
 */
@Entity({ tableName: 'profile_updates' })
@Index({ properties: ['environment_id', 'id'] })
// One row of changes per awaited insert: another attempt of the batch finds it (a decorator's columns cannot say `where`).
@Unique({
  name: 'profile_updates_environment_id_insert_token_unique',
  expression: 'create unique index "profile_updates_environment_id_insert_token_unique" on "ingestion"."profile_updates" ("environment_id", "insert_token") where "insert_token" is not null',
})
export class ProfileUpdates {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'int' })
  environment_id!: number;

  @Property({ type: 'jsonb' })
  updates!: ProfileEntry[];

  /** How many entries `updates` holds: a pass takes batches up to a number of entries, not of rows. */
  @Property({ type: 'int' })
  entries!: number;

  /** How many bytes of JSON `updates` is: a pass also takes at most so many, whatever the entries hold. */
  @Property({ type: 'int', default: 0 })
  bytes: number = 0;

  /**
   * Passes that failed with this row in them. A row that failed is tried alone next, and one that
   * failed alone thrice is parked (left out of passes, kept for an operator to read).
   */
  @Property({ type: 'int', default: 0 })
  attempts: number = 0;

  /** Why the last pass with this row failed. */
  @Property({ type: 'text', nullable: true })
  last_error: string | null = null;

  /** Set on a row of applied changes that ClickHouse's mirror tables still lack (its `updates` are empty). */
  @Property({ type: 'jsonb', nullable: true })
  mirror: ProfileMirror | null = null;

  /**
   * Where events live on ClickHouse: the deduplication token of the batch's insert, made after the
   * batch's commit, until ClickHouse took it. Changes are not applied while it is set: passes stop
   * at such a row (`awaiting-insert.queue.ts`).
   */
  @Property({ type: 'text', nullable: true })
  insert_token: string | null = null;

  /** The events of that insert, which a sweep looks for in ClickHouse when its batch's process left the token set. */
  @Property({ type: 'jsonb', nullable: true })
  insert_events: EventKey[] | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
