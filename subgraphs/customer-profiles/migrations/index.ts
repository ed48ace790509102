import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122002035_customer_profiles } from './Migration20261122002035_customer_profiles.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122002035_customer_profiles', class: Migration20261122002035_customer_profiles },
];
