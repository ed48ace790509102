import type { EntityManager } from '@mikro-orm/postgresql';
import { bootstrap, type BootstrapInput, type BootstrapResult } from './bootstrap/bootstrap.service.js';

export type { BootstrapInput, BootstrapResult };

/** What other subgraphs and the platform start-up may ask of projects: plain objects in and out. */
export const projectsFacade = {
  bootstrap: (em: { accounts: EntityManager; projects: EntityManager }, input: BootstrapInput): Promise<BootstrapResult> =>
    bootstrap(em, input),
};
