import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122014918_projects } from './Migration20261122014918_projects.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122014918_projects', class: Migration20261122014918_projects },
];
