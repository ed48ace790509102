import type { EntityManager } from '@mikro-orm/postgresql';
import { MembershipLevel, type Actor } from '../../shared/auth/actor.js';
import { requireOrganization } from '../../shared/subgraph/access.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { EnvironmentService } from '../environments/environment.service.js';
import type { EnvironmentInProjectArgs } from '../environments/environment.inputs.js';
import { IngestionRestriction, PIPELINES, RESTRICTION_TYPES } from './ingestion-restriction.entity.js';
import type { IngestionRestrictionRecord, RestrictionTypeArgs, SetIngestionRestrictionArgs } from './ingestion-restriction.record.js';

const MAX_LIST_LENGTH = 1000;

/** Read by members; set and removed by admins of the organization (PostHog leaves this to staff). */
export class IngestionRestrictionService {
  constructor(private readonly em: EntityManager) {}

  async list(actor: Actor, args: EnvironmentInProjectArgs): Promise<IngestionRestrictionRecord[]> {
    const environment = await new EnvironmentService(this.em).entity(actor, args);
    const restrictions = await this.em.find(IngestionRestriction, { environment }, { orderBy: { id: 'asc' } });
    return restrictions.map(({ restriction_type, distinct_ids, session_ids, event_names, event_uuids, pipelines }) => ({
      restriction_type,
      distinct_ids,
      session_ids,
      event_names,
      event_uuids,
      pipelines,
    }));
  }

  async set(actor: Actor, args: SetIngestionRestrictionArgs): Promise<IngestionRestrictionRecord[]> {
    validType(args.restriction_type);
    const lists = {
      distinct_ids: list(args.distinct_ids, 'distinct_ids'),
      session_ids: list(args.session_ids, 'session_ids'),
      event_names: list(args.event_names, 'event_names'),
      event_uuids: list(args.event_uuids, 'event_uuids'),
      pipelines: args.pipelines ? pipelines(args.pipelines) : [...PIPELINES],
    };
    const environment = await this.adminEntity(actor, args);
    await this.em.upsert(
      IngestionRestriction,
      { environment, restriction_type: args.restriction_type, ...lists, created_at: new Date() },
      { onConflictFields: ['environment', 'restriction_type'], onConflictMergeFields: Object.keys(lists) as never },
    );
    return this.list(actor, args);
  }

  async remove(actor: Actor, args: RestrictionTypeArgs): Promise<void> {
    const environment = await this.adminEntity(actor, args);
    if ((await this.em.nativeDelete(IngestionRestriction, { environment, restriction_type: args.restriction_type })) === 0) throw new NotFoundError();
  }

  private async adminEntity(actor: Actor, args: EnvironmentInProjectArgs) {
    const environment = await new EnvironmentService(this.em).entity(actor, args);
    await this.em.populate(environment, ['project']);
    requireOrganization(actor, environment.project.organization.id, MembershipLevel.admin, 'You must be an admin of the organization to change ingestion restrictions.');
    return environment;
  }
}

function validType(value: string): void {
  if (!(RESTRICTION_TYPES as readonly string[]).includes(value)) throw new ValidationError(`"${value}" is not a valid choice.`, 'restriction_type', 'invalid_choice');
}

function pipelines(values: string[]): string[] {
  const wrong = values.find((value) => !(PIPELINES as readonly string[]).includes(value));
  if (wrong !== undefined) throw new ValidationError(`"${wrong}" is not a valid choice.`, 'pipelines', 'invalid_choice');
  return [...new Set(values)];
}

function list(values: string[] | undefined, attr: string): string[] {
  const items = [...new Set((values ?? []).map((value) => value.trim()).filter(Boolean))];
  if (items.length > MAX_LIST_LENGTH) throw new ValidationError(`Ensure this list has no more than ${MAX_LIST_LENGTH} items.`, attr, 'max_length');
  return items;
}
