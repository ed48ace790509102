import type { EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor, EnvironmentPlacement } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import type { Envelope, PubSub } from '../../shared/pubsub/pubsub.js';
import { exceedsDepth, isUuid, jsonSize, MAX_JSON_DEPTH, refuseNulls } from '../../shared/validation.js';
import { projectsFacade } from '../../projects/facade.js';
import { CustomerProfileConfig } from './customer-profile-config.entity.js';
import { ChangeAction, changesTopic, type ChangePayload } from './customer-profile-config.event.js';
import type {
  CreateCustomerProfileConfigArgs,
  ListCustomerProfileConfigsArgs,
  UpdateCustomerProfileConfigArgs,
} from './customer-profile-config.inputs.js';
import { readPage } from '../../shared/db/find-page.js';

/** Largest `content` or `sidebar` accepted, in bytes of JSON. */
export const MAX_LAYOUT_BYTES = 256 * 1024;

/** Every rule of customer profile configs; each method is scoped to an environment the actor reaches. */
export class CustomerProfileConfigService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
  ) {}

  async list(actor: Actor, args: ListCustomerProfileConfigsArgs): Promise<Page<CustomerProfileConfig>> {
    const environment = await this.environment(actor, args.project_id);
    const window = pageWindow(args);
    const [results, count] = await readPage(
      this.em,
      CustomerProfileConfig,
      { environment_id: environment.id },
      { orderBy: { created_at: 'desc', id: 'asc' }, limit: window.limit, offset: window.offset },
    );
    return toPage(results, count, window);
  }

  async get(actor: Actor, environmentId: number, id: string): Promise<CustomerProfileConfig> {
    const environment = await this.environment(actor, environmentId);
    const config = isUuid(id) ? await this.em.findOne(CustomerProfileConfig, { id, environment_id: environment.id }) : null;
    if (!config) throw new NotFoundError();
    return config;
  }

  async create(actor: Actor, args: CreateCustomerProfileConfigArgs): Promise<CustomerProfileConfig> {
    const environment = await this.environment(actor, args.project_id);
    const config = Object.assign(new CustomerProfileConfig(), {
      environment_id: environment.id,
      project_id: environment.project_id,
      scope: args.scope,
      content: layout(args.content, 'content'),
      sidebar: layout(args.sidebar, 'sidebar'),
      created_by_id: requireUserId(actor),
    });
    await this.em.persistAndFlush(config);
    await this.publish(environment.id, ChangeAction.created, config);
    return config;
  }

  async update(actor: Actor, args: UpdateCustomerProfileConfigArgs): Promise<CustomerProfileConfig> {
    const config = await this.get(actor, args.project_id, args.id);
    refuseNulls(args, ['scope']);
    if (args.scope != null) config.scope = args.scope;
    if (args.content !== undefined) config.content = layout(args.content, 'content');
    if (args.sidebar !== undefined) config.sidebar = layout(args.sidebar, 'sidebar');
    config.updated_at = new Date();
    await this.em.flush();
    await this.publish(config.environment_id, ChangeAction.updated, config);
    return config;
  }

  async delete(actor: Actor, environmentId: number, id: string): Promise<void> {
    const config = await this.get(actor, environmentId, id);
    await this.em.removeAndFlush(config);
    await this.publish(environmentId, ChangeAction.deleted, null, id);
  }

  /** Changes of one environment from now on; access is checked once, when the subscription starts. */
  async subscribe(actor: Actor, environmentId: number): Promise<AsyncIterableIterator<Envelope<ChangePayload>>> {
    const environment = await this.environment(actor, environmentId);
    return this.pubsub.subscribe<ChangePayload>(changesTopic(environment.id));
  }

  private environment(actor: Actor, environmentId: number): Promise<EnvironmentPlacement> {
    return projectsFacade.reachEnvironment(this.em, actor, environmentId);
  }

  private async publish(environmentId: number, action: ChangeAction, config: CustomerProfileConfig | null, id = config?.id): Promise<void> {
    const payload: ChangePayload = { action, id: id!, config };
    await this.pubsub.publish(changesTopic(environmentId), payload);
  }
}

/** `content` and `sidebar`: an object or array (null means `{}`), within the size limit. */
function layout(value: unknown, attr: 'content' | 'sidebar'): unknown {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object') throw new ValidationError(`Invalid value for field '${attr}'`, attr);
  if (exceedsDepth(value)) throw new ValidationError(`Ensure this field nests no deeper than ${MAX_JSON_DEPTH} levels.`, attr, 'max_depth');
  if (jsonSize(value) > MAX_LAYOUT_BYTES) {
    throw new ValidationError(`Ensure this field is no larger than ${MAX_LAYOUT_BYTES} bytes of JSON.`, attr, 'max_length');
  }
  return value;
}
