import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActorMembershipsType } from './actor-memberships.type.js';
import { Membership } from './membership.entity.js';

export class MembershipService {
  constructor(private readonly em: EntityManager) {}

  /** Everything the actor header needs about a user's access, in two indexed queries. */
  async forUser(userId: number): Promise<ActorMembershipsType> {
    const connection = this.em.getConnection();
    const [organizations, environments] = await Promise.all([
      this.em.find(Membership, { user_id: userId }, { fields: ['organization', 'level'] }),
      connection.execute<{ id: number; project_id: number; organization_id: string }[]>(
        `select e.id, e.project_id, p.organization_id
           from projects.memberships m
           join projects.projects p on p.organization_id = m.organization_id and p.deleted_at is null
           join projects.environments e on e.project_id = p.id
          where m.user_id = ?`,
        [userId],
      ),
    ]);
    return {
      organizations: organizations.map((m) => ({ id: m.organization.id, level: m.level })),
      environments: environments.map((e) => ({ id: e.id, project_id: e.project_id, organization_id: e.organization_id })),
    };
  }

  async add(organizationId: string, userId: number, level: number): Promise<void> {
    await this.em.upsert(Membership, { organization: organizationId, user_id: userId, level, created_at: new Date() }, {
      onConflictFields: ['organization', 'user_id'],
      onConflictAction: 'ignore',
    });
  }
}
