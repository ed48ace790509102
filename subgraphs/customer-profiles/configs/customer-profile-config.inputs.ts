import { ArgsType, Field, ID, Int } from 'type-graphql';
import { PageArgs } from '../../shared/pagination.js';
import { JSONScalar } from '../../shared/scalars.js';
import { CustomerProfileScope } from './customer-profile-config.entity.js';

@ArgsType()
export class EnvironmentArgs {
  @Field(() => Int, { description: 'The environment (project) id.' })
  project_id!: number;
}

@ArgsType()
export class ListCustomerProfileConfigsArgs extends PageArgs {
  @Field(() => Int, { description: 'The environment (project) id.' })
  project_id!: number;
}

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
