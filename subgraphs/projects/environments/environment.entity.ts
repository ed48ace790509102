import { randomUUID } from 'node:crypto';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Project } from '../projects/project.entity.js';
import type { Settings } from '../settings/settings.js';

/**
 * An environment (PostHog's team): where events, settings and most records live. The first
 * environment of a project has the project's id, and its settings are the project's.
 */
@Entity({ tableName: 'environments' })
export class Environment {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Property({ type: 'uuid', unique: true })
  uuid: string = randomUUID();

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  @Index()
  project!: Project;

  @Property({ type: 'text' })
  name!: string;

  /** Only the settings written so far; the rest take their defaults from the settings table. */
  @Property({ type: 'jsonb' })
  settings: Settings = {};

  /** `sha256$<hex>` of the project API token (`phc_`), to find the environment at ingestion. */
  @Property({ type: 'text', unique: true, hidden: true })
  api_token_hash!: string;

  /** The token itself, sealed with SECRET_KEY: it is shown to members, so it must be recoverable. */
  @Property({ type: 'text', hidden: true })
  api_token_sealed!: string;

  /** The secret token (`phs_`) and the one it replaced, sealed; both authenticate until the backup goes. */
  @Property({ type: 'text', nullable: true, hidden: true })
  secret_api_token_sealed: string | null = null;

  @Property({ type: 'text', nullable: true, hidden: true })
  secret_api_token_backup_sealed: string | null = null;

  /** Whether ingestion has taken an event for this environment yet (set by ingestion, never unset). */
  @Property({ type: 'boolean', default: false })
  ingested_event: boolean = false;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updated_at: Date = new Date();
}
