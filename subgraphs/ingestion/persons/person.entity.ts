import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A person of an environment: whoever its distinct ids name, with the properties its events set.
 * Written by ingestion with set-based SQL (`person.repository.ts`), read through the ORM.
 */
@Entity({ tableName: 'persons' })
@Index({ properties: ['environment_id', 'created_at', 'id'] })
@Index({ properties: ['environment_id', 'updated_at'] })
export class Person {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'int' })
  environment_id!: number;

  /** Derived from the environment and the person's first distinct id, as PostHog derives it. */
  @Property({ type: 'uuid', unique: true })
  uuid!: string;

  @Property({ type: 'jsonb' })
  properties: Record<string, unknown> = {};

  /** Set once an `$identify` (or an alias) has named the person. */
  @Property({ type: 'boolean', default: false })
  is_identified: boolean = false;

  /** The time of the person's earliest event. */
  @Property({ type: 'timestamptz' })
  created_at!: Date;

  /** When it last changed (batch exports of persons read by it). */
  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updated_at: Date = new Date();

  /** Raised with every change. */
  @Property({ type: 'int', default: 0 })
  version: number = 0;
}
