import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { CaptureService } from './capture.service.js';
import { IngestBatchArgs, IngestPayloadArgs } from './ingest-batch.inputs.js';
import { IngestBatchResult } from './ingest-batch.record.js';

@Resolver()
export class IngestBatchResolver {
  // No scope: as PostHog's capture, the project API key in the arguments is the credential, and a
  // personal API key adds nothing to it (`/batch/` is this mutation).
  @Mutation(() => IngestBatchResult, {
    description:
      "Ingests a batch of events into the environment of its project API key (`/batch/`). All or nothing: a bad event is a 400 naming its index and field, and nothing is stored.",
  })
  ingest_batch(@Args() args: IngestBatchArgs, @Ctx() { em, pubsub, log }: SubgraphContext): Promise<IngestBatchResult> {
    return new CaptureService(em, pubsub, log).ingest(args);
  }

  @Mutation(() => IngestBatchResult, {
    description:
      'The same, for a capture request body as JSON text (what `/batch/` runs): a megabyte of events crosses the router as one string and is parsed once.',
  })
  ingest_payload(@Args() { payload }: IngestPayloadArgs, @Ctx() { em, pubsub, log }: SubgraphContext): Promise<IngestBatchResult> {
    return new CaptureService(em, pubsub, log).ingestPayload(payload);
  }
}
