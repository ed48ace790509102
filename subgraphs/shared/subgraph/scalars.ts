import { GraphQLScalarType } from 'graphql';
import { GraphQLDateTimeISO, GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';

/** Free-form JSON (objects, arrays or null), passed through untouched. */
export const JSONScalar = GraphQLJSON;

/** ISO 8601 timestamp in UTC (`2026-01-31T12:00:00.000Z`). */
export const DateTimeScalar = new GraphQLScalarType({
  ...GraphQLDateTimeISO.toConfig(),
  name: 'DateTime',
  description: 'An ISO 8601 timestamp in UTC, such as 2026-01-31T12:00:00.000Z.',
});

/** An integer up to 2^53 - 1 (counts that outgrow GraphQL's 32-bit Int, such as an environment's events). */
export const SafeIntScalar = GraphQLSafeInt;
