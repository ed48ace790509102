import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { requireUserId } from '../../shared/auth/access.js';
import type { SubgraphContext } from '../../shared/context.js';
import { NotFoundError } from '../../shared/errors.js';
import { User } from './user.entity.js';
import { UserService } from './user.service.js';

@Resolver(() => User)
export class UserResolver {
  @Authorized('user:read')
  @Query(() => User, { description: 'The user behind the calling key.' })
  async me(@Ctx() { actor, em }: SubgraphContext): Promise<User> {
    const user = await new UserService(em).findById(requireUserId(actor));
    if (!user) throw new NotFoundError();
    return user;
  }
}
