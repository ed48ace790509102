import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireScopeOfKey } from '../../shared/subgraph/access.js';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { SuccessResult } from '../two-factor/two-factor.types.js';
import { EmailVerificationResult, RequestEmailVerificationArgs, VerifyEmailArgs } from './email-verification.inputs.js';
import { EmailVerificationService } from './email-verification.service.js';

/** Open without a key, as in PostHog (the mailed token is the credential); a key needs `user:write`. */
@Resolver()
export class EmailVerificationResolver {
  @Mutation(() => SuccessResult, { description: 'Mails a verification token; answers alike whether or not the account exists.' })
  request_email_verification(@Args() args: RequestEmailVerificationArgs, @Ctx() { actor, em, pubsub, log }: SubgraphContext): Promise<SuccessResult> {
    requireScopeOfKey(actor, 'user:write');
    return new EmailVerificationService(em, pubsub, log).request(actor, args);
  }

  @Mutation(() => EmailVerificationResult, { description: 'Spends a mailed token: the address it was sent to becomes the verified email.' })
  verify_email(@Args() args: VerifyEmailArgs, @Ctx() { actor, em, pubsub }: SubgraphContext): Promise<EmailVerificationResult> {
    requireScopeOfKey(actor, 'user:write');
    return new EmailVerificationService(em, pubsub).verify(args);
  }
}
