import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { ActivityLog, type ActivityChange } from './activity-log.entity.js';

/**
 * One field's change of an activity-log entry, a row per field: settings_as_of finds each
 * setting's oldest change after an instant with one index probe, where expanding the entries'
 * JSON would read the environment's whole history since then. Written with its entry, in the
 * same flush, so it is as complete as the log.
 */
@Entity({ tableName: 'setting_changes' })
@Index({ properties: ['environment_id', 'field', 'created_at', 'log'] })
export class SettingChange {
  @ManyToOne(() => ActivityLog, { primary: true, deleteRule: 'cascade' })
  log!: ActivityLog;

  /** The change's place in its entry's `changes`. */
  @PrimaryKey({ type: 'smallint' })
  position!: number;

  @Property({ type: 'integer' })
  environment_id!: number;

  @Property({ type: 'text' })
  field!: string;

  @Property({ type: 'text' })
  action!: ActivityChange['action'];

  /** As the log keeps it (token values masked). */
  @Property({ type: 'jsonb', nullable: true })
  before: unknown = null;

  /** The entry's time. */
  @Property({ type: 'timestamptz', length: 6 })
  created_at!: Date;
}
