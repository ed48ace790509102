import { ArgsType, Field, ObjectType } from 'type-graphql';

@ArgsType()
export class RequestEmailVerificationArgs {
  @Field({ nullable: true, description: "The account's uuid (PostHog's form); or give `email`, or neither for the caller's own." })
  uuid?: string;

  @Field({ nullable: true, description: 'The address to verify: the account email or a pending new one.' })
  email?: string;
}

@ArgsType()
export class VerifyEmailArgs {
  @Field({ description: "The account's uuid, as in the mail." })
  uuid!: string;

  @Field({ nullable: true, description: 'The token from the mail.' })
  token?: string;
}

@ObjectType('EmailVerification')
export class EmailVerificationResult {
  @Field()
  success!: boolean;

  @Field({ description: 'The token that was spent.' })
  token!: string;
}
