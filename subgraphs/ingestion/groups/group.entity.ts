import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** A group (a company, an instance…) of an environment, by its type's index and its key. */
@Entity({ tableName: 'groups' })
// The list's order, newest first and then by key, as an index holds it (a decorator's columns cannot say `desc`).
@Index({
  name: 'groups_environment_id_type_created_at_key_index',
  expression: 'create index "groups_environment_id_type_created_at_key_index" on "ingestion"."groups" ("environment_id", "group_type_index", "created_at" desc, "group_key")',
})
export class Group {
  @PrimaryKey({ type: 'int' })
  environment_id!: number;

  /** The project's index of the group type (0 to 4). */
  @PrimaryKey({ type: 'smallint' })
  group_type_index!: number;

  @PrimaryKey({ type: 'text' })
  group_key!: string;

  /** Merged from every `$group_set`, later ones winning. */
  @Property({ type: 'jsonb' })
  group_properties: Record<string, unknown> = {};

  /** The time of the group's earliest update. */
  @Property({ type: 'timestamptz' })
  created_at!: Date;

  @Property({ type: 'timestamptz' })
  updated_at: Date = new Date();
}
