import { Field, ID, Int, ObjectType } from 'type-graphql';

/** Where the caller's user works now: what `@current` names in a REST path, as PostHog resolves it. */
@ObjectType('CurrentPlacement', { description: "The organization, project and environment the caller's user works in now (what `@current` names in REST paths)." })
export class CurrentPlacementRecord {
  @Field(() => ID, { nullable: true, description: 'The current organization; null when the user belongs to none.' })
  organization_id!: string | null;

  @Field(() => Int, { nullable: true, description: "The current environment's project; null when the organization has none." })
  project_id!: number | null;

  @Field(() => Int, { nullable: true, description: 'The current environment (team); null when the organization has none.' })
  environment_id!: number | null;
}
