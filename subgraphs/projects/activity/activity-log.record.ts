import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';
import { Paginated } from '../../shared/pagination.js';
import { JSONScalar } from '../../shared/scalars.js';

/** The accounts subgraph's User, referenced by id; the router fetches its fields there. */
@ObjectType('User')
@Directive('@key(fields: "id", resolvable: false)')
export class UserStub {
  @Field(() => Int)
  id!: number;
}

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
  @Field({ description: 'The name of the project or environment changed.' })
  name!: string;

  @Field(() => [ActivityChangeRecord])
  changes!: ActivityChangeRecord[];
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
export class ActivityLogList extends Paginated(ActivityLogRecord) {}
