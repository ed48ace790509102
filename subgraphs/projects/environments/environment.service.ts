import type { EntityManager } from '@mikro-orm/postgresql';
import { reachesEnvironment, requireEnvironment } from '../../shared/auth/access.js';
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

  /** For entity references: the environments among `ids` that the actor may see, in one query. */
  async findMany(actor: Actor, ids: readonly number[]): Promise<Map<number, Environment>> {
    const allowed = ids.filter((id) => reachesEnvironment(actor, id));
    const environments = allowed.length > 0 ? await this.em.find(Environment, { id: { $in: allowed } }) : [];
    return new Map(environments.map((environment) => [environment.id, environment]));
  }

  apiToken(environment: Environment): string {
    return secretBox().open(environment.api_token_sealed);
  }

  projectOf(environment: Environment): Promise<Project> {
    return this.em.findOneOrFail(Project, { id: environment.project.id });
  }
}
