import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125013708_conversations } from './Migration20261125013708_conversations.js';

/** Every migration of this subgraph, oldest first (generated files, committed). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261125013708_conversations', class: Migration20261125013708_conversations },
];
