import { projectsFacade } from './projects/facade.js';
import type { Orm } from './shared/db/orm.js';
import type { Logger } from './shared/logger.js';
import type { SubgraphDefinition } from './shared/subgraph/define.js';

export interface DeletionWorker {
  /** Runs pending deletions now (tests, and the first run at start). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

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
  let running: Promise<void> | undefined;
  let stopped = false;
  /** One pass over the pending jobs; a pass already under way is joined, not doubled. */
  const pass = () => {
    running ??= (async () => {
      while (!stopped && (await projectsFacade.runNextDeletion(projectsOrm.em.fork(), cleanup))) log.info('project deletion job done');
    })()
      .catch((error: unknown) => log.error({ err: error }, 'project deletion job failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  // A pass that started before the caller's job was committed may miss it: wait, then pass again.
  const drain = async () => {
    await running;
    await pass();
  };
  const timer = setInterval(() => void pass(), intervalMs);
  timer.unref();
  void pass();
  return {
    drain,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
