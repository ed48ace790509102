import { Entity, Index, Property } from '@mikro-orm/core';
import type { Provider } from '../providers/provider.catalog.js';
import type { KeyState } from '../providers/provider.errors.js';
import { EnvironmentEntity } from '../../shared/db/base.entity.js';

/** A language-model provider key of an environment; the key itself only sealed (AES-256-GCM). */
@Entity({ tableName: 'provider_keys' })
@Index({ properties: ['environment_id', 'created_at'] })
export class ProviderKey extends EnvironmentEntity {
  @Property({ type: 'text' })
  provider!: Provider;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', hidden: true })
  api_key_sealed!: string;

  @Property({ type: 'text' })
  api_key_masked!: string;

  @Property({ type: 'text' })
  state: KeyState = 'unknown';

  @Property({ type: 'text', nullable: true })
  error_message: string | null = null;

  /** The accounts subgraph's user id of the creator. */
  @Property({ type: 'integer', nullable: true })
  created_by_id: number | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updated_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  last_used_at: Date | null = null;
}
