import { randomUUID } from 'node:crypto';
import { Entity, Index, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { Organization } from '../organizations/organization.entity.js';

/** A project: a product being analysed, with one or more environments. */
@Entity({ tableName: 'projects' })
// The list's `search` is a case-insensitive substring (LIKE '%…%' on the folded name): trigrams find it without reading every name.
@Index({
  name: 'projects_name_folded_trgm_index',
  expression: 'create index "projects_name_folded_trgm_index" on "projects"."projects" using gin ("name_folded" public.gin_trgm_ops)',
})
// An organization's live projects, counted for every page of the list from the index alone.
@Index({ properties: ['organization', 'deleted_at'] })
export class Project {
  /** Taken from the project's first environment, so the two share it. */
  @PrimaryKey({ autoincrement: false })
  id!: number;

  @Property({ type: 'uuid', unique: true })
  uuid: string = randomUUID();

  @ManyToOne(() => Organization, { deleteRule: 'cascade' })
  organization!: Organization;

  @Property({ type: 'text' })
  name!: string;

  /**
   * The name as PostgreSQL's `lower()` folds it, kept by the database. ILIKE in a UTF-8 database
   * is `lower(text) LIKE lower(pattern)`, folding every name it compares on every search (much of
   * a search's time: test/bench/RESULTS.md); a search compares this column with LIKE instead: the
   * same answers, folded once per write. Never read by the platform, so never selected.
   */
  @Property<Project>({ type: 'text', generated: (columns) => `(lower(${columns.name})) stored`, lazy: true, hidden: true })
  name_folded!: string & Opt;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updated_at: Date = new Date();

  /** Set when the project is deleted: it is gone for callers at once, its data a little later. */
  @Property({ type: 'timestamptz', nullable: true })
  deleted_at: Date | null = null;
}
