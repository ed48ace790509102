import type { EntityManager } from '@mikro-orm/postgresql';
import { requireEnvironment } from '../../shared/auth/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { secretBox } from '../../shared/secrets.js';
import { Project } from '../projects/project.entity.js';
import { Environment } from './environment.entity.js';

export class EnvironmentService {
  constructor(private readonly em: EntityManager) {}

  async get(actor: Actor, id: number): Promise<Environment> {
    requireEnvironment(actor, id);
    const environment = await this.em.findOne(Environment, { id });
    if (!environment) throw new NotFoundError();
    return environment;
  }

  /** For entity references: the environment if the actor may see it, else null. */
  find(actor: Actor, id: number): Promise<Environment | null> {
    return this.get(actor, id).catch(() => null);
  }

  apiToken(environment: Environment): string {
    return secretBox().open(environment.api_token_sealed);
  }

  projectOf(environment: Environment): Promise<Project> {
    return this.em.findOneOrFail(Project, { id: environment.project.id });
  }
}
