import { Field, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ObjectType('ProductIntent')
export class ProductIntentRecord {
  @Field({ description: 'A product key such as `session_replay`.' })
  product_type!: string;

  @Field(() => JSONScalar, { description: 'How often each context recorded the intent.' })
  contexts!: Record<string, number>;

  @Field()
  created_at!: Date;

  @Field()
  updated_at!: Date;

  @Field(() => Date, { nullable: true })
  onboarding_completed_at!: Date | null;
}
