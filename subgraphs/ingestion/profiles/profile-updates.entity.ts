import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import type { ProfileEntry } from './profile-entry.js';

/**
 * The person and group changes of one committed batch, waiting for the profile worker. Written in
 * the batch's transaction, so a batch that got its 200 has them; deleted in the transaction that
 * applies them.
 */
@Entity({ tableName: 'profile_updates' })
@Index({ properties: ['environment_id', 'id'] })
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

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
