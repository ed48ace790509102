import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { UserArgs } from '../users/user-account.inputs.js';
import { TwoFactorService } from './two-factor.service.js';
import { SuccessResult, TwoFactorBackupCodesResult, TwoFactorCodeArgs, TwoFactorSetupResult, TwoFactorStatusResult } from './two-factor.types.js';

const service = ({ em, pubsub }: SubgraphContext) => new TwoFactorService(em, pubsub);

@Resolver()
export class TwoFactorResolver {
  @Authorized('user:write')
  @Mutation(() => TwoFactorSetupResult, { description: 'Starts TOTP setup: a new secret, its otpauth URI and QR code (valid 10 minutes).' })
  two_factor_start_setup(@Args() { uuid }: UserArgs, @Ctx() context: SubgraphContext): Promise<TwoFactorSetupResult> {
    return service(context).startSetup(context.actor, uuid);
  }

  @Authorized('user:write')
  @Mutation(() => TwoFactorBackupCodesResult, { description: 'Confirms setup with a current code: 2FA is on; the backup codes are shown this once.' })
  two_factor_validate(@Args() { uuid, token }: TwoFactorCodeArgs, @Ctx() context: SubgraphContext): Promise<TwoFactorBackupCodesResult> {
    return service(context).validateSetup(context.actor, uuid, token);
  }

  @Authorized('user:write')
  @Mutation(() => SuccessResult, { description: 'Checks a current code or an unused backup code (which is then spent).' })
  validate_2fa(@Args() { uuid, token }: TwoFactorCodeArgs, @Ctx() context: SubgraphContext): Promise<SuccessResult> {
    return service(context).validate(context.actor, uuid, token);
  }

  @Authorized('user:read')
  @Query(() => TwoFactorStatusResult, { description: 'Whether 2FA is on, and the unused backup codes (masked).' })
  two_factor_status(@Args() { uuid }: UserArgs, @Ctx() context: SubgraphContext): Promise<TwoFactorStatusResult> {
    return service(context).status(context.actor, uuid);
  }

  @Authorized('user:write')
  @Mutation(() => TwoFactorBackupCodesResult, { description: 'Replaces the backup codes with ten new ones, shown this once; needs a current code.' })
  two_factor_backup_codes(@Args() { uuid, token }: TwoFactorCodeArgs, @Ctx() context: SubgraphContext): Promise<TwoFactorBackupCodesResult> {
    return service(context).regenerateBackupCodes(context.actor, uuid, token);
  }

  @Authorized('user:write')
  @Mutation(() => SuccessResult, { description: 'Turns 2FA off and removes the authenticator and every backup code.' })
  two_factor_disable(@Args() { uuid }: UserArgs, @Ctx() context: SubgraphContext): Promise<SuccessResult> {
    return service(context).disable(context.actor, uuid);
  }
}
