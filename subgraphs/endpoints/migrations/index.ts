import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125110000_endpoints } from './Migration20261125110000_endpoints.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261125110000_endpoints', class: Migration20261125110000_endpoints },
];
