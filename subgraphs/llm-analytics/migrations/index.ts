import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122062408_llm_analytics } from './Migration20261122062408_llm_analytics.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122062408_llm_analytics', class: Migration20261122062408_llm_analytics },
];
