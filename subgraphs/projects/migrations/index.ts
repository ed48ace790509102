import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122015800_projects } from './Migration20261122015800_projects.js';
import { Migration20261122032133_projects } from './Migration20261122032133_projects.js';
import { Migration20261122033731_projects } from './Migration20261122033731_projects.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122015800_projects', class: Migration20261122015800_projects },
  { name: 'Migration20261122032133_projects', class: Migration20261122032133_projects },
  { name: 'Migration20261122033731_projects', class: Migration20261122033731_projects },
];
