import { projectsFacade } from '../../subgraphs/projects/facade.js';
import type { Orm } from '../../subgraphs/shared/db/orm.js';
import type { Logger } from '../../subgraphs/shared/logger.js';
import type { SubgraphDefinition, Worker } from '../../subgraphs/shared/subgraph/define.js';
import { startPeriodicWorker } from '../../subgraphs/shared/subgraph/periodic.worker.js';

/** `drain` runs pending deletions now (tests, and the first run at start). */
export type DeletionWorker = Worker;

/**
 * Works through deleted projects: each subgraph with environment data drops it, then the projects
 * subgraph deletes the project's rows. Jobs are rows in the database, so work left by a stopped
 * process is picked up by the next one; several workers never take the same job.
 */
export function startDeletionWorker(
  projectsOrm: Orm,
  cleaners: { definition: SubgraphDefinition; orm: Orm }[],
  log: Logger,
  intervalMs = 2000,
): DeletionWorker {
  const cleanup = async (environmentIds: number[]) => {
    for (const { definition, orm } of cleaners) await definition.deleteEnvironmentData!(orm.em.fork(), environmentIds);
  };
  return startPeriodicWorker({
    run: async (stopped) => {
      while (!stopped() && (await projectsFacade.runNextDeletion(projectsOrm.em.fork(), cleanup))) log.info('project deletion job done');
    },
    everyMs: intervalMs,
    log,
    failure: 'project deletion job failed',
  });
}
