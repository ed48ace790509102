import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireEnvironment } from '../../shared/subgraph/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { secretBox } from '../../shared/secrets.js';
import { environmentRecord, teamRelations } from '../records.js';
import { ProductIntentService } from '../intents/product-intent.service.js';
import { NOT_GENERATING, type DemoDataStatus } from '../projects/demo-data.record.js';
import { ConversationsService } from '../settings/conversations.service.js';
import { SETTING_NAMES } from '../settings/setting.catalog.js';
import { SettingsService } from '../settings/settings.service.js';
import { TokenService, type TokenAction } from '../tokens/token.service.js';
import { Environment } from './environment.entity.js';
import type { EnvironmentInProjectArgs, EnvironmentIntentArgs, UpdateEnvironmentArgs } from './environment.inputs.js';
import type { EnvironmentRecord } from './environment.record.js';

export class EnvironmentService {
  constructor(private readonly em: EntityManager) {}

  async get(actor: Actor, args: EnvironmentInProjectArgs): Promise<EnvironmentRecord> {
    const { environment, organizationId } = await this.load(actor, args);
    return this.record(actor, environment, organizationId);
  }

  /** For entity references: the environments among `ids` that the actor may see, as records. */
  async findMany(actor: Actor, ids: readonly number[]): Promise<Map<number, EnvironmentRecord>> {
    // As ProjectService.findMany: the organization filter is the access check, in the one query.
    const organizations = Object.keys(actor.organizations);
    const wanted = ids.filter((id) => Number.isSafeInteger(id));
    const environments =
      wanted.length > 0 && organizations.length > 0
        ? await this.em.find(
            Environment,
            { id: { $in: wanted }, project: { deleted_at: null, organization: { $in: organizations } } },
            { populate: ['project'] },
          )
        : [];
    const related = await teamRelations(this.em, environments);
    return new Map(
      environments.map((environment) => [environment.id, environmentRecord(environment, environment.project.organization.id, actor, related(environment))]),
    );
  }

  /** Changes the name and settings given; configuration needs a member, the rest an admin. */
  async update(actor: Actor, args: UpdateEnvironmentArgs): Promise<EnvironmentRecord> {
    return this.withLocked(actor, args, async (em, environment, organizationId) => {
      await em.populate(environment, ['project']);
      new SettingsService(em).change(actor, { scope: 'Team', project: environment.project, environment, organizationId }, args, SETTING_NAMES);
    });
  }

  /** Records a product intent, or completes its onboarding (members; project:read). */
  async productIntent(actor: Actor, args: EnvironmentIntentArgs, action: 'add' | 'complete'): Promise<EnvironmentRecord> {
    return this.withLocked(actor, args, async (em, environment, organizationId) => {
      await em.populate(environment, ['project']);
      await new ProductIntentService(em).apply(actor, { scope: 'Team', project: environment.project, environment, organizationId }, action, args);
    });
  }

  /** A new public token for the conversations widget (admins). */
  async generateConversationsToken(actor: Actor, args: EnvironmentInProjectArgs): Promise<EnvironmentRecord> {
    return this.withLocked(actor, args, async (em, environment, organizationId) => {
      await em.populate(environment, ['project']);
      new ConversationsService(em).generatePublicToken(actor, { scope: 'Team', project: environment.project, environment, organizationId });
    });
  }

  /** Whether demo data is being generated for an environment the actor reaches (never: there is no generator). */
  async demoDataStatus(actor: Actor, args: EnvironmentInProjectArgs): Promise<DemoDataStatus> {
    await this.load(actor, args);
    return NOT_GENERATING;
  }

  /** A token action on the environment (admins only). */
  async changeToken(actor: Actor, args: EnvironmentInProjectArgs, action: TokenAction): Promise<EnvironmentRecord> {
    return this.withLocked(actor, args, (em, environment, organizationId) => {
      new TokenService(em).apply(actor, { scope: 'Team', environment, organizationId, itemName: environment.name }, action);
    });
  }

  /** The project API token in clear (bootstrap prints it). */
  apiToken(environment: Environment): string {
    return secretBox().open(environment.api_token_sealed);
  }

  /** Runs a change in one transaction with the environment's row locked (changes apply one by one). */
  private withLocked(
    actor: Actor,
    args: EnvironmentInProjectArgs,
    change: (em: EntityManager, environment: Environment, organizationId: string) => void | Promise<void>,
  ): Promise<EnvironmentRecord> {
    return this.em.transactional(async (em) => {
      const { environment, organizationId } = await new EnvironmentService(em).load(actor, args, LockMode.PESSIMISTIC_WRITE);
      await change(em, environment, organizationId);
      await em.flush();
      return new EnvironmentService(em).record(actor, environment, organizationId);
    });
  }

  /** The environment entity, for features that hang off it (locked for a change when asked). */
  async entity(actor: Actor, args: EnvironmentInProjectArgs, lock = false): Promise<Environment> {
    return (await this.load(actor, args, lock ? LockMode.PESSIMISTIC_WRITE : undefined)).environment;
  }

  private async record(actor: Actor, environment: Environment, organizationId: string): Promise<EnvironmentRecord> {
    const related = await teamRelations(this.em, [environment]);
    return environmentRecord(environment, organizationId, actor, related(environment));
  }

  /**
   * An environment the actor reaches (in the project given, if any; another project's is "not
   * found"), with its project, in one query: 404 when it does not exist or is being deleted, 403
   * when it is another organization's. A lock takes the environment's row only.
   */
  private async load(actor: Actor, args: EnvironmentInProjectArgs, lockMode?: LockMode): Promise<{ environment: Environment; organizationId: string }> {
    const environment = Number.isSafeInteger(args.id)
      ? await this.em.findOne(
          Environment,
          { id: args.id, project: { deleted_at: null } },
          { populate: ['project'], ...(lockMode ? { lockMode, lockTableAliases: ['e0'] } : {}) },
        )
      : null;
    const project = environment?.project;
    const { organization_id: organizationId } = requireEnvironment(
      actor,
      environment && project ? { id: environment.id, project_id: project.id, organization_id: project.organization.id } : undefined,
    );
    if (args.project_id != null && project!.id !== args.project_id) throw new NotFoundError();
    return { environment: environment!, organizationId };
  }
}
