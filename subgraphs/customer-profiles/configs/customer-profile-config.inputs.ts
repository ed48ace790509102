import { ArgsType, Field, ID } from 'type-graphql';
import { EnvironmentArgs, EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';

export { EnvironmentArgs };
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { CustomerProfileScope } from './customer-profile-config.entity.js';

@ArgsType()
export class ListCustomerProfileConfigsArgs extends EnvironmentPageArgs {}

@ArgsType()
export class CustomerProfileConfigArgs extends EnvironmentArgs {
  @Field(() => ID)
  id!: string;
}

@ArgsType()
export class CreateCustomerProfileConfigArgs extends EnvironmentArgs {
  @Field(() => CustomerProfileScope)
  scope!: CustomerProfileScope;

  @Field(() => JSONScalar, { nullable: true, description: 'Object or array; null or absent stores {}.' })
  content?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'Object or array; null or absent stores {}.' })
  sidebar?: unknown;
}

@ArgsType()
export class UpdateCustomerProfileConfigArgs extends CustomerProfileConfigArgs {
  @Field(() => CustomerProfileScope, { nullable: true })
  scope?: CustomerProfileScope;

  @Field(() => JSONScalar, { nullable: true, description: 'Object or array; null stores {}; absent keeps it.' })
  content?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'Object or array; null stores {}; absent keeps it.' })
  sidebar?: unknown;
}
