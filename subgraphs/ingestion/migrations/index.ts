import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261123165205_ingestion } from './Migration20261123165205_ingestion.js';
import { Migration20261124125950_ingestion } from './Migration20261124125950_ingestion.js';
import { Migration20261125100000_ingestion } from './Migration20261125100000_ingestion.js';
import { Migration20261125200000_ingestion } from './Migration20261125200000_ingestion.js';
import { Migration20261201203000_ingestion } from './Migration20261201203000_ingestion.js';
import { Migration20261202001000_ingestion } from './Migration20261202001000_ingestion.js';
import { Migration20261203100000_ingestion } from './Migration20261203100000_ingestion.js';
import { Migration20261204100000_ingestion } from './Migration20261204100000_ingestion.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261123165205_ingestion', class: Migration20261123165205_ingestion },
  { name: 'Migration20261124125950_ingestion', class: Migration20261124125950_ingestion },
  { name: 'Migration20261125100000_ingestion', class: Migration20261125100000_ingestion },
  { name: 'Migration20261125200000_ingestion', class: Migration20261125200000_ingestion },
  { name: 'Migration20261201203000_ingestion', class: Migration20261201203000_ingestion },
  { name: 'Migration20261202001000_ingestion', class: Migration20261202001000_ingestion },
  { name: 'Migration20261203100000_ingestion', class: Migration20261203100000_ingestion },
  { name: 'Migration20261204100000_ingestion', class: Migration20261204100000_ingestion },
];
