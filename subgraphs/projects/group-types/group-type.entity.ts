import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Project } from '../projects/project.entity.js';

/**
 * A group type of a project (PostHog's GroupTypeMapping): `company`, `instance`, … at one of five
 * indexes. Made when ingestion first sees a `$groupidentify` of a new type; a project has none
 * until then, which is what `has_group_types` and `group_types` report.
 */
@Entity({ tableName: 'group_types' })
@Unique({ properties: ['project', 'group_type'] })
@Unique({ properties: ['project', 'group_type_index'] })
export class GroupType {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @Property({ type: 'text' })
  group_type!: string;

  /** 0 to 4: the column of events that holds this type's group key. */
  @Property({ type: 'smallint' })
  group_type_index!: number;

  @Property({ type: 'text', nullable: true })
  name_singular: string | null = null;

  @Property({ type: 'text', nullable: true })
  name_plural: string | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
