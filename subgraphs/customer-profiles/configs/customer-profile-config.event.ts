import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { CustomerProfileConfig } from './customer-profile-config.entity.js';

export enum ChangeAction {
  created = 'created',
  updated = 'updated',
  deleted = 'deleted',
}

registerEnumType(ChangeAction, { name: 'ChangeAction', description: 'What happened to a record.' });

/** One change to the customer profile configs of an environment, as subscribers receive it. */
@ObjectType('CustomerProfileConfigChange')
export class CustomerProfileConfigChange {
  @Field(() => Int, { description: 'Increases by one per change of this environment; a gap means missed events.' })
  sequence!: number;

  @Field(() => ChangeAction)
  action!: ChangeAction;

  @Field(() => ID)
  id!: string;

  @Field(() => CustomerProfileConfig, { nullable: true, description: 'The config after the change; null when deleted.' })
  config!: CustomerProfileConfig | null;
}

export interface ChangePayload {
  action: ChangeAction;
  id: string;
  config: CustomerProfileConfig | null;
}

/** The pub/sub topic of one environment's config changes. */
export const changesTopic = (environmentId: number) => `customer_profile_config_changed:${environmentId}`;
