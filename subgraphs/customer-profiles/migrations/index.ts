import type { MigrationObject } from '@mikro-orm/core';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [];
