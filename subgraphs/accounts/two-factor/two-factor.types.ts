import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { UserArgs } from '../users/user-account.inputs.js';

@ArgsType()
export class TwoFactorCodeArgs extends UserArgs {
  @Field({ nullable: true, description: 'A 6-digit code from the authenticator, or (for validate_2fa) an unused backup code.' })
  token?: string;
}

@ObjectType('TwoFactorSetup')
export class TwoFactorSetupResult {
  @Field()
  success!: boolean;

  @Field({ description: 'The new base32 TOTP secret, for typing into an authenticator by hand.' })
  secret!: string;

  @Field({ description: 'The `otpauth://totp/…` URI authenticator apps scan.' })
  otpauth_uri!: string;

  @Field({ description: 'The URI as an SVG QR code.' })
  qr_code!: string;
}

@ObjectType('TwoFactorBackupCodes')
export class TwoFactorBackupCodesResult {
  @Field()
  success!: boolean;

  @Field(() => [String], { description: 'Single-use backup codes, shown this once.' })
  backup_codes!: string[];
}

@ObjectType('TwoFactorStatus')
export class TwoFactorStatusResult {
  @Field()
  is_enabled!: boolean;

  @Field(() => String, { nullable: true, description: '`TOTP` when enabled.' })
  method!: string | null;

  @Field(() => [String], { description: 'The unused backup codes, masked (never in clear after they were first shown).' })
  backup_codes!: string[];

  @Field(() => Int)
  backup_codes_remaining!: number;
}

@ObjectType('Success')
export class SuccessResult {
  @Field()
  success!: boolean;
}
