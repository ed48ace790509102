import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125130958_batch_exports } from './Migration20261125130958_batch_exports.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261125130958_batch_exports', class: Migration20261125130958_batch_exports },
];
