import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { UserStub } from './user.stub.js';

@ObjectType('ActivityChange')
export class ActivityChangeRecord {
  @Field({ description: '`Project` or `Team` (an environment).' })
  type!: string;

  @Field({ description: '`created`, `changed` or `deleted`.' })
  action!: string;

  @Field(() => String, { nullable: true })
  field!: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'The value before (secrets masked).' })
  before!: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'The value after (secrets masked).' })
  after!: unknown;
}

@ObjectType('ActivityDetail')
export class ActivityDetailRecord {
  @Field(() => String, { description: 'The id of the project or environment changed (as `item_id`).' })
  id!: string;

  @Field({ description: 'The name of the project or environment changed.' })
  name!: string;

  @Field(() => [ActivityChangeRecord])
  changes!: ActivityChangeRecord[];

  // PostHog's detail carries these for other kinds of items (merges, flags, insights); a project's are null.
  @Field(() => JSONScalar, { nullable: true, description: 'A merge of persons: always null for projects and environments.' })
  merge!: null;

  @Field(() => JSONScalar, { nullable: true, description: 'What triggered the change: always null here.' })
  trigger!: null;

  @Field(() => String, { nullable: true, description: "An insight's short id: always null here." })
  short_id!: null;

  @Field(() => String, { nullable: true, description: "The item's subtype: always null here." })
  type!: null;
}

/** One entry of a project's activity log. */
@ObjectType('ActivityLogEntry')
export class ActivityLogRecord {
  @Field(() => ID)
  id!: string;

  @Field(() => UserStub, { nullable: true, description: 'Who made the change; null for the system.' })
  user!: UserStub | null;

  @Field({ description: '`created`, `updated` or `deleted`.' })
  activity!: string;

  @Field({ description: '`Project` or `Team` (an environment).' })
  scope!: string;

  @Field({ description: 'The id of the project or environment changed.' })
  item_id!: string;

  @Field(() => ActivityDetailRecord)
  detail!: ActivityDetailRecord;

  @Field()
  created_at!: Date;
}

@ObjectType('ActivityLogList')
export class ActivityLogList extends Paginated(ActivityLogRecord) {
  @Field(() => Int, { description: "The same as `count`, under the name PostHog's activity log gives it." })
  total_count!: number;
}
