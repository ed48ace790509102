import { Entity, ManyToOne, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Person } from './person.entity.js';

/** Which person a distinct id of an environment names; merging persons moves their ids. */
@Entity({ tableName: 'person_distinct_ids' })
export class PersonDistinctId {
  @PrimaryKey({ type: 'int' })
  environment_id!: number;

  @PrimaryKey({ type: 'text' })
  distinct_id!: string;

  @ManyToOne(() => Person, { deleteRule: 'cascade', index: true, ref: true })
  person!: Ref<Person>;

  /** Raised each time the id moves to another person (PostHog's `person_distinct_id_version`). */
  @Property({ type: 'int', default: 0 })
  version: number = 0;
}
