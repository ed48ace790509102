import type { EntityManager } from '@mikro-orm/postgresql';
import { belongsTo, requireOrganization } from '../../shared/subgraph/access.js';
import { isUuid } from '../../shared/validation.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { Organization } from './organization.entity.js';

const MAX_NAME_LENGTH = 64;

export class OrganizationService {
  constructor(private readonly em: EntityManager) {}

  /** The actor's organizations, oldest first. */
  mine(actor: Actor): Promise<Organization[]> {
    const ids = Object.keys(actor.organizations).filter(isUuid);
    return this.em.find(Organization, { id: { $in: ids } }, { orderBy: { created_at: 'asc', id: 'asc' } });
  }

  async get(actor: Actor, id: string): Promise<Organization> {
    const organization = isUuid(id) && belongsTo(actor, id) ? await this.em.findOne(Organization, { id }) : null;
    if (!organization) throw new NotFoundError();
    requireOrganization(actor, id);
    return organization;
  }

  /** For entity references: the organizations among `ids` that the actor belongs to, in one query. */
  async findMany(actor: Actor, ids: readonly string[]): Promise<Map<string, Organization>> {
    const allowed = ids.filter((id) => isUuid(id) && belongsTo(actor, id));
    const organizations = allowed.length > 0 ? await this.em.find(Organization, { id: { $in: allowed } }) : [];
    return new Map(organizations.map((organization) => [organization.id, organization]));
  }

  async create(name: string): Promise<Organization> {
    const trimmed = name.trim();
    if (!trimmed) throw new ValidationError('This field may not be blank.', 'name', 'blank');
    if (trimmed.length > MAX_NAME_LENGTH) {
      throw new ValidationError(`Ensure this field has no more than ${MAX_NAME_LENGTH} characters.`, 'name', 'max_length');
    }
    const organization = Object.assign(new Organization(), { name: trimmed });
    await this.em.persistAndFlush(organization);
    return organization;
  }
}
