import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122002035_accounts } from './Migration20261122002035_accounts.js';
import { Migration20261122062940_accounts } from './Migration20261122062940_accounts.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122002035_accounts', class: Migration20261122002035_accounts },
  { name: 'Migration20261122062940_accounts', class: Migration20261122062940_accounts },
];
