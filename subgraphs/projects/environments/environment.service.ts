import type { EntityManager } from '@mikro-orm/postgresql';
import { reachesEnvironment, requireEnvironment } from '../../shared/auth/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { secretBox } from '../../shared/secrets.js';
import { environmentRecord } from '../records.js';
import { SETTING_NAMES } from '../settings/setting.spec.js';
import { SettingsService } from '../settings/settings.service.js';
import { TokenService, type TokenAction } from '../tokens/token.service.js';
import { Environment } from './environment.entity.js';
import type { EnvironmentInProjectArgs, UpdateEnvironmentArgs } from './environment.inputs.js';
import type { EnvironmentRecord } from './environment.record.js';

export class EnvironmentService {
  constructor(private readonly em: EntityManager) {}

  async get(actor: Actor, id: number): Promise<EnvironmentRecord> {
    const { environment, organizationId } = await this.load(actor, id);
    return environmentRecord(environment, organizationId, actor);
  }

  /** For entity references: the environments among `ids` that the actor may see, as records. */
  async findMany(actor: Actor, ids: readonly number[]): Promise<Map<number, EnvironmentRecord>> {
    const allowed = ids.filter((id) => reachesEnvironment(actor, id));
    const environments = allowed.length > 0 ? await this.em.find(Environment, { id: { $in: allowed } }) : [];
    return new Map(
      environments.map((environment) => [
        environment.id,
        environmentRecord(environment, actor.environments[String(environment.id)]!.organization_id, actor),
      ]),
    );
  }

  /** Changes the name and settings given; configuration needs a member, the rest an admin. */
  async update(actor: Actor, args: UpdateEnvironmentArgs): Promise<EnvironmentRecord> {
    const { environment, organizationId } = await this.load(actor, args.id);
    await this.em.populate(environment, ['project']);
    new SettingsService(this.em).change(actor, { scope: 'Team', project: environment.project, environment, organizationId }, args, SETTING_NAMES);
    await this.em.flush();
    return environmentRecord(environment, organizationId, actor);
  }

  /** A token action on the environment (admins only). */
  async changeToken(actor: Actor, args: EnvironmentInProjectArgs, action: TokenAction): Promise<EnvironmentRecord> {
    const { environment, organizationId } = await this.load(actor, args.id);
    if (args.project_id != null && environment.project.id !== args.project_id) throw new NotFoundError();
    new TokenService(this.em).apply(actor, { scope: 'Team', environment, organizationId, itemName: environment.name }, action);
    await this.em.flush();
    return environmentRecord(environment, organizationId, actor);
  }

  /** The project API token in clear (bootstrap prints it). */
  apiToken(environment: Environment): string {
    return secretBox().open(environment.api_token_sealed);
  }

  private async load(actor: Actor, id: number): Promise<{ environment: Environment; organizationId: string }> {
    const { organization_id: organizationId } = requireEnvironment(actor, id);
    const environment = await this.em.findOne(Environment, { id });
    if (!environment) throw new NotFoundError();
    return { environment, organizationId };
  }
}
