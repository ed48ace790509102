import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261123165205_ingestion } from './Migration20261123165205_ingestion.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261123165205_ingestion', class: Migration20261123165205_ingestion },
];
