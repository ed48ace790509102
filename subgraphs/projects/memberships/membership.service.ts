import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActorMembershipsType } from './actor-memberships.type.js';
import { Membership } from './membership.entity.js';

/** A user of the accounts subgraph, as a membership names it. */
export interface MemberUser {
  id: number;
  uuid: string;
}

export class MembershipService {
  constructor(private readonly em: EntityManager) {}

  /** What the actor header needs about a user's access: the organizations, by an indexed query. */
  async forUser(userId: number): Promise<ActorMembershipsType> {
    const memberships = await this.em.find(Membership, { user_id: userId }, { fields: ['organization', 'level'] });
    return { organizations: memberships.map((m) => ({ id: m.organization.id, level: m.level })) };
  }

  async add(organizationId: string, user: MemberUser, level: number): Promise<void> {
    await this.em.upsert(Membership, { organization: organizationId, user_id: user.id, user_uuid: user.uuid, level, created_at: new Date() }, {
      onConflictFields: ['organization', 'user_id'],
      onConflictAction: 'ignore',
    });
  }
}
