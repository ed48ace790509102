import { ArgsType, Field, Float, Int } from 'type-graphql';
import { EnvironmentArgs } from '../../shared/subgraph/environment.args.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';

export { EnvironmentArgs };

@ArgsType()
export class ListEndpointsArgs extends EnvironmentArgs {
  @Field(() => Boolean, { nullable: true, description: 'Only active (true) or inactive (false) endpoints.' })
  is_active?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Only endpoints made by this user id.' })
  created_by?: number | null;
}

@ArgsType()
export class EndpointArgs extends EnvironmentArgs {
  @Field({ description: 'The endpoint name (its key in paths).' })
  name!: string;
}

@ArgsType()
export class EndpointVersionArgs extends EndpointArgs {
  @Field(() => Int)
  version_number!: number;
}

/** The fields a create or an update may set. */
@ArgsType()
class EndpointFieldsArgs extends EnvironmentArgs {
  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: '`{"kind": "HogQLQuery", "query": "select …", "variables": {…}}` or a `TrendsQuery`.' })
  query?: unknown;

  @Field(() => Boolean, { nullable: true })
  is_active?: boolean | null;

  @Field(() => Float, { nullable: true, description: 'Seconds a cached result is served; null or 300 to 86400.' })
  cache_age_seconds?: number | null;

  @Field(() => Boolean, { nullable: true, description: "Keep the current version's result materialized, refreshed every `sync_frequency`." })
  is_materialized?: boolean | null;

  @Field(() => String, { nullable: true, description: '`5min`, `30min`, `1hour`, `6hour`, `12hour`, `24hour` (default), `7day` or `30day`.' })
  sync_frequency?: string | null;
}

@ArgsType()
export class CreateEndpointArgs extends EndpointFieldsArgs {
  @Field(() => String, { nullable: true, description: 'Letters, digits, `_` and `-`, starting with a letter; at most 128 characters. Never changes.' })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'Short id of the insight the query came from.' })
  derived_from_insight?: string | null;
}

@ArgsType()
export class UpdateEndpointArgs extends EndpointFieldsArgs {
  @Field({ description: 'The endpoint name (its key in paths).' })
  name!: string;

  @Field(() => Int, { nullable: true, description: 'Apply description, cache age and is_active to this version rather than the latest.' })
  version?: number | null;
}

@ArgsType()
export class RunEndpointArgs extends EndpointArgs {
  @Field(() => String, { nullable: true, description: 'The query id, for tracking.' })
  client_query_id?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Keep the diagnostic keys (`hogql`, `timings`, `cache_key`, …) in the answer.' })
  debug?: boolean | null;

  @Field(() => JSONScalar, { nullable: true, description: 'TrendsQuery endpoints: `date_from`, `date_to`, `properties`. Refused for HogQL endpoints.' })
  filters_override?: unknown;

  @Field(() => Int, { nullable: true, description: 'HogQL endpoints: at most this many rows (and no more than the query\'s own LIMIT).' })
  limit?: number | null;

  @Field(() => JSONScalar, { nullable: true, description: 'Always refused: use variables.' })
  query_override?: unknown;

  @Field(() => String, { nullable: true, description: '`cache` (default): a fresh cached result, else computed; `force`: computed; `direct`: the live query of a materialized endpoint.' })
  refresh?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'Values of the query\'s variables, by code name (TrendsQuery: the breakdown property, `date_from`, `date_to`).' })
  variables?: unknown;

  @Field(() => Int, { nullable: true, description: 'The version to run (default: the latest).' })
  version?: number | null;
}

@ArgsType()
export class LastExecutionTimesArgs extends EnvironmentArgs {
  @Field(() => [String])
  names!: string[];
}
