import { Args, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { BatchCheckArgs, BatchCheckResult, SummarizationResult, SummarizeArgs } from './summarization.types.js';
import { SummarizationService } from './summarization.service.js';

const service = ({ em, pubsub, log }: SubgraphContext) => new SummarizationService(em, pubsub, log);

@Resolver()
export class SummarizationResolver {
  @Authorized('llm_analytics:write')
  @Mutation(() => SummarizationResult, { description: 'Has a language model summarize a trace or event, with line references; cached for an hour.' })
  llm_summarization(@Args() args: SummarizeArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).summarize(ctx.actor, args);
  }

  @Authorized('llm_analytics:write')
  @Mutation(() => BatchCheckResult, { description: 'Which of the given traces already have a cached summary.' })
  llm_summarization_batch_check(@Args() args: BatchCheckArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).batchCheck(ctx.actor, args);
  }
}
