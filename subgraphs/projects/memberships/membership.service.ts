import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActorMembershipsType } from './actor-memberships.type.js';
import { Membership } from './membership.entity.js';

export class MembershipService {
  constructor(private readonly em: EntityManager) {}

  /** What the actor header needs about a user's access: the organizations, by an indexed query. */
  async forUser(userId: number): Promise<ActorMembershipsType> {
    const memberships = await this.em.find(Membership, { user_id: userId }, { fields: ['organization', 'level'] });
    return { organizations: memberships.map((m) => ({ id: m.organization.id, level: m.level })) };
  }

  async add(organizationId: string, userId: number, level: number): Promise<void> {
    await this.em.upsert(Membership, { organization: organizationId, user_id: userId, level, created_at: new Date() }, {
      onConflictFields: ['organization', 'user_id'],
      onConflictAction: 'ignore',
    });
  }
}
