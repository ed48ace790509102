import { Field, Int, ObjectType } from 'type-graphql';
import type { BatchOutcome } from './capture.service.js';

@ObjectType('IngestBatchResult', { description: 'The answer to a batch, given once it is committed.' })
export class IngestBatchResult implements BatchOutcome {
  @Field(() => String, { description: '`Ok`, as PostHog answers.' })
  status!: 'Ok';

  @Field(() => Int, { description: 'Events in the batch.' })
  received!: number;

  @Field(() => Int, { description: 'Events stored now.' })
  stored!: number;

  @Field(() => Int, { description: 'Events stored before (same uuid, or the same content without one): a retry stores nothing twice.' })
  duplicates!: number;

  @Field(() => Int, { description: "Events dropped by the environment's ingestion restrictions." })
  dropped!: number;
}
