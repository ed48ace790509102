import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import type { Provider } from '../providers/provider.catalog.js';
import { ProviderKey } from './provider-key.entity.js';

/** The key an environment uses for a provider: at most one per provider, by the primary key. */
@Entity({ tableName: 'active_provider_keys' })
export class ActiveProviderKey {
  @PrimaryKey({ type: 'integer' })
  environment_id!: number;

  @PrimaryKey({ type: 'text' })
  provider!: Provider;

  @ManyToOne(() => ProviderKey, { deleteRule: 'cascade', unique: true })
  key!: ProviderKey;

  @Property({ type: 'timestamptz' })
  updated_at: Date = new Date();
}
