import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { EnvironmentArgs } from '../../shared/subgraph/environment.args.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

@ArgsType()
export class SummarizeArgs extends EnvironmentArgs {
  @Field({ nullable: true, description: '`trace` or `event` (required).' })
  summarize_type?: string;

  @Field({ nullable: true, defaultValue: 'minimal', description: '`minimal` (default; fewer bullets and notes) or `detailed`.' })
  mode?: string;

  @Field(() => JSONScalar, { nullable: true, description: 'For a trace `{"trace": {…}, "hierarchy": […]}`, for an event `{"event": {…}}`.' })
  data?: unknown;

  @Field({ nullable: true, defaultValue: false, description: 'Make the summary again instead of answering a cached one (and cache the new one).' })
  force_refresh?: boolean;

  @Field({ nullable: true, description: "A model id; default: the first configured provider's default model." })
  model?: string;
}

@ArgsType()
export class BatchCheckArgs extends EnvironmentArgs {
  @Field(() => [String], { nullable: true, description: 'Trace ids (at most 100).' })
  trace_ids?: string[];

  @Field({ nullable: true, defaultValue: 'minimal' })
  mode?: string;

  @Field({ nullable: true })
  model?: string;
}

@ObjectType('SummarizationMetadata')
export class SummarizationMetadata {
  @Field(() => Int, { description: 'Characters of the line-numbered text the model read.' })
  text_repr_length!: number;

  @Field({ description: 'The model that wrote the summary.' })
  model!: string;

  @Field()
  provider!: string;

  @Field({ description: '`trace` or `event`.' })
  summarize_type!: string;
}

@ObjectType('Summarization')
export class SummarizationResult {
  @Field({ description: 'Markdown: a title, the bullets with [L45] / [L45-52] references, and "Interesting Notes".' })
  summary!: string;

  @Field({ description: 'The line-numbered text the references point into.' })
  text_repr!: string;

  @Field(() => SummarizationMetadata)
  metadata!: SummarizationMetadata;
}

@ObjectType('CachedSummaryInfo')
export class CachedSummaryInfo {
  @Field()
  trace_id!: string;

  @Field()
  title!: string;

  @Field()
  cached!: boolean;
}

@ObjectType('SummarizationBatchCheck')
export class BatchCheckResult {
  @Field(() => [CachedSummaryInfo], { description: 'Only the traces that have a cached summary.' })
  summaries!: CachedSummaryInfo[];
}
