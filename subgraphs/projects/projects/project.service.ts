import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { generateToken } from '../../shared/crypto.js';
import { NotFoundError } from '../../shared/errors.js';
import { secretBox, tokenHash } from '../../shared/secrets.js';
import { Environment } from '../environments/environment.entity.js';
import { Organization } from '../organizations/organization.entity.js';
import { Project } from './project.entity.js';

export class ProjectService {
  constructor(private readonly em: EntityManager) {}

  /** Projects the actor reaches through its memberships; another tenant's is "not found". */
  async get(actor: Actor, id: number): Promise<Project> {
    const reachable = Object.values(actor.environments).some((environment) => environment.project_id === id);
    const project = reachable ? await this.em.findOne(Project, { id }) : null;
    if (!project) throw new NotFoundError();
    return project;
  }

  /** For entity references: the projects among `ids` that the actor may see, in one query. */
  async findMany(actor: Actor, ids: readonly number[]): Promise<Map<number, Project>> {
    const reachable = new Set(Object.values(actor.environments).map((environment) => environment.project_id));
    const allowed = ids.filter((id) => reachable.has(id));
    const projects = allowed.length > 0 ? await this.em.find(Project, { id: { $in: allowed } }) : [];
    return new Map(projects.map((project) => [project.id, project]));
  }

  /**
   * A project and its first environment, which share one id taken from the environment sequence,
   * with a fresh project API token. Returns the token in clear this once.
   */
  async create(organizationId: string, name: string): Promise<{ project: Project; environment: Environment; apiToken: string }> {
    const [{ id }] = await this.em
      .getConnection()
      .execute<{ id: string }[]>(`select nextval('projects.environments_id_seq') as id`);
    const projectId = Number(id);
    const apiToken = generateToken('phc_', 32);
    const project = Object.assign(new Project(), {
      id: projectId,
      organization: this.em.getReference(Organization, organizationId),
      name,
    });
    const environment = Object.assign(new Environment(), {
      id: projectId,
      project,
      name: 'Default environment',
      api_token_hash: tokenHash(apiToken),
      api_token_sealed: secretBox().seal(apiToken),
    });
    this.em.persist([project, environment]);
    await this.em.flush();
    return { project, environment, apiToken };
  }

  async organizationOf(project: Project): Promise<Organization> {
    return this.em.findOneOrFail(Organization, { id: project.organization.id });
  }
}
