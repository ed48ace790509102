import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122015800_projects } from './Migration20261122015800_projects.js';
import { Migration20261122034555_projects } from './Migration20261122034555_projects.js';
import { Migration20261122053415_projects } from './Migration20261122053415_projects.js';
import { Migration20261129063441_projects } from './Migration20261129063441_projects.js';
import { Migration20261203070730_projects } from './Migration20261203070730_projects.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122015800_projects', class: Migration20261122015800_projects },
  { name: 'Migration20261122034555_projects', class: Migration20261122034555_projects },
  { name: 'Migration20261122053415_projects', class: Migration20261122053415_projects },
  { name: 'Migration20261129063441_projects', class: Migration20261129063441_projects },
  { name: 'Migration20261203070730_projects', class: Migration20261203070730_projects },
];
