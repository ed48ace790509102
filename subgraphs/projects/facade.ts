import type { EntityManager } from '@mikro-orm/postgresql';
import { bootstrap, type BootstrapInput, type BootstrapResult } from './bootstrap/bootstrap.service.js';
import { DeletionService, type EnvironmentDataCleanup } from './deletion/deletion.service.js';

export type { BootstrapInput, BootstrapResult };

/** What other subgraphs and the platform start-up may ask of projects: plain objects in and out. */
export const projectsFacade = {
  /** Runs the oldest pending project deletion, if any; `cleanup` drops other subgraphs' data. */
  runNextDeletion: (em: EntityManager, cleanup: EnvironmentDataCleanup): Promise<boolean> => new DeletionService(em).runNext(cleanup),

  bootstrap: (em: { accounts: EntityManager; projects: EntityManager }, input: BootstrapInput): Promise<BootstrapResult> =>
    bootstrap(em, input),
};
