import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { belongsTo, isAdmin, NO_PROJECT_ACCESS, requireOrganization } from '../../shared/subgraph/access.js';
import { MembershipLevel, type Actor } from '../../shared/auth/actor.js';
import { generateToken } from '../../shared/crypto.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import { secretBox, tokenHash } from '../../shared/secrets.js';
import { isUuid } from '../../shared/validation.js';
import { ActivityLogService } from '../activity/activity-log.service.js';
import { ConversationsService } from '../settings/conversations.service.js';
import { DeletionService } from '../deletion/deletion.service.js';
import { NOT_GENERATING, type DemoDataStatus } from './demo-data.record.js';
import { ProductIntentService } from '../intents/product-intent.service.js';
import { Environment } from '../environments/environment.entity.js';
import { Organization } from '../organizations/organization.entity.js';
import { NO_RELATIONS, projectBasicRecord, projectRecord, teamRelations } from '../records.js';
import { PROJECT_SETTING_NAMES } from '../settings/setting.catalog.js';
import { validateSettings } from '../settings/settings.js';
import { SettingsService, validName } from '../settings/settings.service.js';
import { TokenService, type TokenAction } from '../tokens/token.service.js';
import type { ActivityLogRecord } from '../activity/activity-log.record.js';
import type {
  ChangeOrganizationArgs,
  CreateProjectArgs,
  ListProjectsArgs,
  ProjectActivityArgs,
  ProjectArgs,
  ProjectIntentArgs,
  UpdateProjectArgs,
} from './project.inputs.js';
import type { ProjectBasicRecord } from './project-basic.record.js';
import { listProjects } from './project-list.repository.js';
import { ProjectRecord } from './project.record.js';
import { Project } from './project.entity.js';
import { announceProjectChange, projectCacheOf, type ProjectBrief } from './project.cache.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';

/** The fields of a project's brief form, and the type name the router may ask with them. */
const BRIEF_FIELDS: ReadonlySet<string> = new Set(['__typename', 'id', 'name']);

export class ProjectService {
  /** With the subgraph's pub/sub, projects deleted, moved or renamed are announced: every process forgets what it cached of them. */
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub?: PubSub,
  ) {}

  /** The organization's projects, newest first; `search` matches the name case-insensitively. */
  async list(actor: Actor, args: ListProjectsArgs): Promise<Page<ProjectBasicRecord>> {
    if (!isUuid(args.organization_id)) throw new NotFoundError();
    requireOrganization(actor, args.organization_id);
    const window = pageWindow(args);
    const { rows, count } = await listProjects(this.em, args.organization_id, args.search ?? undefined, window);
    return toPage(rows.map(projectBasicRecord), count, window);
  }

  async get(actor: Actor, id: number, organizationId?: string): Promise<ProjectRecord> {
    const project = await this.reachable(actor, id, organizationId);
    return (await this.records(actor, [project]))[0]!;
  }

  /**
   * For entity references: the projects among `ids` that the actor may see, as records. When the
   * router asks only their brief form (`id`, `name`: what a record embedding a project shows), that
   * is all that is read: one query of two columns, no environment, intents or group types.
   */
  async findMany(actor: Actor, ids: readonly number[], fields?: ReadonlySet<string>): Promise<Map<number, ProjectRecord>> {
    const organizations = Object.keys(actor.organizations);
    const wanted = ids.filter((id) => Number.isSafeInteger(id));
    if (wanted.length === 0 || organizations.length === 0) return new Map();
    if (fields && [...fields].every((field) => BRIEF_FIELDS.has(field))) {
      const briefs = await projectCacheOf(this.em.getDriver()).briefs.many(wanted, (missing) => this.briefs(missing));
      const seen = [...briefs.values()].filter((brief) => belongsTo(actor, brief.organization_id));
      return new Map(seen.map((brief) => [brief.id, Object.assign(new ProjectRecord(), { id: brief.id, name: brief.name })]));
    }
    const where = { id: { $in: wanted }, organization: { $in: organizations }, deleted_at: null };
    const records = await this.records(actor, await this.em.find(Project, where));
    return new Map(records.map((record) => [record.id, record]));
  }

  /** The brief forms of the projects among `ids` that exist and are not being deleted, whoever may see them. */
  private async briefs(ids: readonly number[]): Promise<Map<number, ProjectBrief>> {
    const rows = await this.em
      .createQueryBuilder(Project)
      .select(['id', 'name', 'organization'])
      .where({ id: { $in: ids }, deleted_at: null })
      .execute<{ id: number; name: string; organization: string }[]>('all');
    return new Map(rows.map((row) => [row.id, { id: row.id, organization_id: row.organization, name: row.name }]));
  }

  /** A new project with its first environment (same id); an admin of the organization only. */
  async create(actor: Actor, args: CreateProjectArgs): Promise<ProjectRecord> {
    if (!isUuid(args.organization_id)) throw new NotFoundError();
    requireOrganization(actor, args.organization_id, MembershipLevel.admin);
    const name = validName(args.name);
    const settings = validateSettings(args, PROJECT_SETTING_NAMES);
    const { project, environment } = await this.em.transactional(async (em) => {
      const created = await new ProjectService(em).createWithEnvironment(args.organization_id, name);
      created.environment.settings = settings;
      new ActivityLogService(em).record(actor, {
        organization_id: args.organization_id,
        project_id: created.project.id,
        environment_id: created.environment.id,
        scope: 'Project',
        activity: 'created',
        item_name: name,
        changes: [{ type: 'Project', action: 'created', field: null, before: null, after: null }],
      });
      return created;
    });
    return projectRecord(project, environment, actor, NO_RELATIONS);
  }

  /** Changes the name and settings given; configuration needs a member, the rest an admin. */
  async update(actor: Actor, args: UpdateProjectArgs): Promise<ProjectRecord> {
    const updated = await this.withPrimaryLocked(actor, args, (em, project, environment) =>
      new SettingsService(em).change(actor, { scope: 'Project', project, environment, organizationId: project.organization.id }, args, PROJECT_SETTING_NAMES),
    );
    if (args.name !== undefined) await this.announce(updated.id);
    return updated;
  }

  /** The project's activity log, newest first. */
  async activity(actor: Actor, args: ProjectActivityArgs): Promise<Page<ActivityLogRecord>> {
    const project = await this.reachable(actor, args.id, args.organization_id);
    return new ActivityLogService(this.em).list(project.id, pageWindow(args), args.page);
  }

  /** Records a product intent, or completes its onboarding (members; project:read). */
  async productIntent(actor: Actor, args: ProjectIntentArgs, action: 'add' | 'complete'): Promise<ProjectRecord> {
    return this.withPrimaryLocked(actor, args, (em, project, environment) =>
      new ProductIntentService(em).apply(actor, { scope: 'Project', project, environment, organizationId: project.organization.id }, action, args),
    );
  }

  /** A new public token for the conversations widget (admins). */
  async generateConversationsToken(actor: Actor, args: ProjectArgs): Promise<ProjectRecord> {
    return this.withPrimaryLocked(actor, args, (em, project, environment) =>
      new ConversationsService(em).generatePublicToken(actor, { scope: 'Project', project, environment, organizationId: project.organization.id }),
    );
  }

  /**
   * Moves a project, and so all its environments, to another organization; the caller must be an
   * admin of both. Logged as a change of the project's organization.
   */
  async changeOrganization(actor: Actor, args: ChangeOrganizationArgs): Promise<ProjectRecord> {
    const moved = await this.withPrimaryLocked(actor, { id: args.id, organization_id: args.source_organization_id }, async (em, project) => {
      const source = project.organization.id;
      const target = args.organization_id;
      if (!isUuid(target) || !isAdmin(actor, source) || !isAdmin(actor, target)) {
        throw new ForbiddenError('You must be an admin of both the source and target organizations to move a project.');
      }
      if (source === target) throw new ValidationError('Project is already in the target organization.', 'organization_id');
      project.organization = em.getReference(Organization, target);
      new ActivityLogService(em).record(actor, {
        organization_id: target,
        project_id: project.id,
        environment_id: project.id,
        scope: 'Project',
        activity: 'updated',
        item_name: project.name,
        changes: [{ type: 'Project', action: 'changed', field: 'organization', before: source, after: target }],
      });
    });
    await this.announce(moved.id);
    return moved;
  }

  /**
   * Deletes a project (an admin, with project:write): gone for callers at once; its environments
   * and their data in every subgraph are removed by a durable background job.
   */
  async delete(actor: Actor, args: ProjectArgs): Promise<void> {
    await this.withPrimaryLocked(actor, args, async (em, project) => {
      requireOrganization(actor, project.organization.id, MembershipLevel.admin, 'You must be an admin of the organization to delete a project.');
      project.deleted_at = new Date();
      await new DeletionService(em).enqueue(project);
      new ActivityLogService(em).record(actor, {
        organization_id: project.organization.id,
        project_id: project.id,
        environment_id: project.id,
        scope: 'Project',
        activity: 'deleted',
        item_name: project.name,
        changes: [{ type: 'Project', action: 'deleted', field: null, before: null, after: null }],
      });
    });
    await this.announce(args.id);
  }

  /** After the commit: a request that read the project before it must not keep it (see ProjectCache). */
  private announce(projectId: number): Promise<void> {
    return announceProjectChange(this.pubsub, this.em.getDriver(), projectId);
  }

  /** Whether demo data is being generated for a project the actor reaches (never: there is no generator). */
  async demoDataStatus(actor: Actor, args: ProjectArgs): Promise<DemoDataStatus> {
    await this.reachable(actor, args.id, args.organization_id);
    return NOT_GENERATING;
  }

  /** A token action on the project's primary environment (admins only). */
  async changeToken(actor: Actor, args: ProjectArgs, action: TokenAction): Promise<ProjectRecord> {
    return this.withPrimaryLocked(actor, args, (em, project, environment) =>
      new TokenService(em).apply(actor, { scope: 'Project', environment, organizationId: project.organization.id, itemName: project.name }, action),
    );
  }

  /**
   * Runs a change of a project in one transaction with its primary environment's row locked, so
   * that concurrent changes apply (and are logged) one after the other.
   */
  private withPrimaryLocked(
    actor: Actor,
    args: { id: number; organization_id?: string },
    change: (em: EntityManager, project: Project, environment: Environment) => unknown,
  ): Promise<ProjectRecord> {
    return this.em.transactional(async (em) => {
      const project = await new ProjectService(em).reachable(actor, args.id, args.organization_id);
      const environment = await em.findOneOrFail(Environment, { id: project.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await change(em, project, environment);
      await em.flush();
      return (await new ProjectService(em).records(actor, [project]))[0]!;
    });
  }

  /**
   * A project and its first environment, which share one id taken from the environment sequence,
   * with a fresh project API token. Returns the token in clear this once.
   */
  async createWithEnvironment(organizationId: string, name: string): Promise<{ project: Project; environment: Environment; apiToken: string }> {
    const [{ id }] = await this.em.getConnection().execute<{ id: string }[]>(`select nextval('projects.environments_id_seq') as id`);
    const projectId = Number(id);
    const apiToken = generateToken('phc_', 32);
    const project = Object.assign(new Project(), { id: projectId, organization: this.em.getReference(Organization, organizationId), name });
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

  /**
   * A project the actor reaches, in the organization given if any. As PostHog answers: an
   * organization the user is not in is 403, a project missing from it 404, and a project of an
   * organization the user is not in 403.
   */
  private async reachable(actor: Actor, id: number, organizationId?: string | null): Promise<Project> {
    if (organizationId != null) {
      if (!isUuid(organizationId)) throw new NotFoundError();
      requireOrganization(actor, organizationId);
    }
    const project = Number.isSafeInteger(id) ? await this.em.findOne(Project, { id, deleted_at: null }) : null;
    if (!project || (organizationId != null && project.organization.id !== organizationId)) throw new NotFoundError();
    if (!belongsTo(actor, project.organization.id)) throw new ForbiddenError(NO_PROJECT_ACCESS);
    return project;
  }

  /** Records of projects, with their primary environments and intents loaded in two queries. */
  private async records(actor: Actor, projects: Project[]): Promise<ProjectRecord[]> {
    if (projects.length === 0) return [];
    const ids = projects.map((project) => project.id);
    const primaries = await this.em.find(Environment, { id: { $in: ids } });
    const related = await teamRelations(this.em, primaries);
    const byId = new Map(primaries.map((environment) => [environment.id, environment]));
    return projects.map((project) => {
      const primary = byId.get(project.id)!;
      return projectRecord(project, primary, actor, related(primary));
    });
  }
}
