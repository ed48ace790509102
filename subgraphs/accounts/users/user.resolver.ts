import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { CurrentPlacementRecord } from './current-placement.record.js';
import { UpdateUserArgs, UserArgs } from './user-account.inputs.js';
import { UserAccountRecord } from './user-account.record.js';
import { UserAccountService } from './user-account.service.js';
import { ME } from './user-access.js';

const service = ({ em, pubsub, log }: SubgraphContext) => new UserAccountService(em, pubsub, log);

@Resolver(() => UserAccountRecord)
export class UserResolver {
  @Authorized('user:read')
  @Query(() => UserAccountRecord, { description: 'The account of the user behind the calling key.' })
  me(@Ctx() context: SubgraphContext): Promise<UserAccountRecord> {
    requireUserId(context.actor);
    return service(context).get(context.actor, ME);
  }

  /**
   * Any key of a user may ask, as PostHog resolves `@current` in a path for any key: the ids say
   * only where the user works, and the operation on them checks its own scope and access.
   */
  @Authorized()
  @Query(() => CurrentPlacementRecord, { description: "Where the caller's user works now: what `@current` names in a REST path." })
  current_placement(@Ctx() context: SubgraphContext): Promise<CurrentPlacementRecord> {
    return service(context).currentPlacement(context.actor);
  }

  @Authorized('user:read')
  @Query(() => UserAccountRecord, { description: 'An account by uuid: `@me`, the caller\'s own uuid, or (staff only) anyone\'s.' })
  user(@Args() { uuid }: UserArgs, @Ctx() context: SubgraphContext): Promise<UserAccountRecord> {
    return service(context).get(context.actor, uuid);
  }

  @Authorized('user:write')
  @Mutation(() => UserAccountRecord, { description: 'Changes the account: profile, preferences, current organization or environment, password, email.' })
  update_user(@Args() args: UpdateUserArgs, @Ctx() context: SubgraphContext): Promise<UserAccountRecord> {
    return service(context).update(context.actor, args);
  }

  @Authorized('user:write')
  @Mutation(() => UserAccountRecord, { description: "Drops the caller's pending email change; 400 when there is none." })
  cancel_email_change_request(@Ctx() context: SubgraphContext): Promise<UserAccountRecord> {
    return service(context).cancelEmailChange(context.actor);
  }
}
