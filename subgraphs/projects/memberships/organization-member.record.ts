import { Field, Int, ObjectType } from 'type-graphql';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { UserStub } from '../activity/user.stub.js';

/** A member of an organization, as PostHog's members list shows one. */
@ObjectType('OrganizationMember')
export class OrganizationMemberRecord {
  @Field(() => Int, { description: 'The membership id.' })
  id!: number;

  @Field(() => UserStub, { description: 'The member (its brief form comes from the accounts subgraph).' })
  user!: UserStub;

  @Field(() => Int, { description: 'Membership level: 1 member, 8 admin, 15 owner.' })
  level!: number;

  @Field()
  joined_at!: Date;

  @Field()
  updated_at!: Date;
}

@ObjectType('OrganizationMemberList')
export class OrganizationMemberList extends Paginated(OrganizationMemberRecord) {}
