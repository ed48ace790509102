import { Args, ArgsType, Authorized, Ctx, Field, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { EnvironmentArgs } from '../../shared/subgraph/environment.args.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { textRepr } from './text-repr.service.js';

@ArgsType()
export class TextReprArgs extends EnvironmentArgs {
  @Field({ nullable: true, description: '`$ai_generation`, `$ai_span`, `$ai_embedding` or `$ai_trace` (required).' })
  event_type?: string;

  @Field(() => JSONScalar, { nullable: true, description: 'The event (with `id` and `properties`), or for a trace `{"trace": {…}, "hierarchy": […]}`.' })
  data?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'max_length, truncated, truncate_buffer, include_markers, collapsed, include_hierarchy, max_depth, tools_collapse_threshold, include_line_numbers.' })
  options?: unknown;
}

@ObjectType('TextReprMetadata')
export class TextReprMetadataRecord {
  @Field()
  event_type!: string;

  @Field(() => String, { nullable: true })
  event_id!: string | null;

  @Field(() => String, { nullable: true })
  trace_id!: string | null;

  @Field({ description: 'Always `detailed`.' })
  rendering!: string;

  @Field(() => Int, { description: 'Length of `text` in characters (Unicode code points).' })
  char_count!: number;

  @Field({ description: 'Whether lines were left out to keep within max_length.' })
  truncated!: boolean;
}

@ObjectType('TextRepr')
export class TextReprRecord {
  @Field()
  text!: string;

  @Field(() => TextReprMetadataRecord)
  metadata!: TextReprMetadataRecord;
}

@Resolver()
export class TextReprResolver {
  @Authorized('llm_analytics:write')
  @Mutation(() => TextReprRecord, { description: 'A readable text form of an LLM event or trace (PostHog layout).' })
  llm_text_repr(@Args() args: TextReprArgs, @Ctx() { actor, em }: SubgraphContext): Promise<TextReprRecord> {
    return textRepr(em, actor, args);
  }
}
