import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Environment } from '../environments/environment.entity.js';
import { Project } from '../projects/project.entity.js';
import { DeletionJob } from './deletion-job.entity.js';

/** Removes what other subgraphs keep for the given environments; safe to run more than once. */
export type EnvironmentDataCleanup = (environmentIds: number[]) => Promise<void>;

export class DeletionService {
  constructor(private readonly em: EntityManager) {}

  /** Queues the removal of a project's data (in the caller's transaction). */
  async enqueue(project: Project): Promise<void> {
    const environments = await this.em.find(Environment, { project }, { fields: ['id'] });
    this.em.persist(Object.assign(new DeletionJob(), { project_id: project.id, environment_ids: environments.map((environment) => environment.id) }));
  }

  /**
   * Takes the oldest unfinished job no other worker holds, has every subgraph drop its data, then
   * deletes the project (its environments and their rows go with it) and marks the job done. A
   * failure leaves the job for a later run. Returns whether a job was done.
   */
  async runNext(cleanup: EnvironmentDataCleanup): Promise<boolean> {
    return this.em.transactional(async (em) => {
      const job = await em.findOne(DeletionJob, { finished_at: null }, { orderBy: { attempts: 'asc', id: 'asc' }, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE });
      if (!job) return false;
      try {
        await cleanup(job.environment_ids);
        await em.nativeDelete(Project, { id: job.project_id });
        job.finished_at = new Date();
      } catch (error) {
        job.attempts += 1;
        job.last_error = (error as Error).message.slice(0, 1000);
      }
      return job.finished_at !== null;
    });
  }
}
