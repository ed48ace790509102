import { ArgsType, Field } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ArgsType()
export class IngestBatchArgs {
  @Field(() => String, {
    nullable: true,
    description: "The project API key (`phc_…`); without it, the one the events carry (`api_key`, `token`, `$token` or `properties.token`).",
  })
  api_key?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    defaultValue: false,
    description: 'True for a historical import: every event must be dated at least 48 hours before now. False: normal ingestion.',
  })
  historical_migration?: boolean | null;

  @Field(() => String, { nullable: true, description: "When the client sent the batch (ISO 8601): corrects the events' times for its clock." })
  sent_at?: string | null;

  @Field(() => [JSONScalar], {
    nullable: 'items',
    description:
      'The events: `event`, `distinct_id` (top level or in `properties`), `timestamp` (ISO 8601), optional `uuid`, `properties`, `$set`, `$set_once`.',
  })
  batch!: unknown[];
}

@ArgsType()
export class IngestPayloadArgs {
  @Field(() => String, {
    description:
      'A capture request body as `/batch/` receives it, as JSON text: `{api_key, historical_migration, sent_at, batch}`, a list of events, or one event. Parsed once, in the ingestion subgraph.',
  })
  payload!: string;
}
