import { Field, ObjectType } from 'type-graphql';
import { PersonalApiKey } from './personal-api-key.entity.js';

/** A key as its creation answers it: the only time its value is shown. */
@ObjectType('NewPersonalApiKey')
export class NewPersonalApiKey extends PersonalApiKey {
  @Field({ description: 'The key itself. Shown in this answer and never again: keep it now.' })
  value!: string;
}
