import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { EventsLostError } from '../errors.js';

/** The last event of a subscription whose events may be lost: resolving it raises the error. */
class Lost {
  constructor(readonly error: EventsLostError) {}
}

/**
 * Makes every subscription of `schema` end with its `events_lost` error as a GraphQL error in the
 * stream, followed by completion. A pub/sub iterator that throws would instead reach graphql-ws as
 * a failed socket (4500) and SSE as a broken response, which no client reads as "re-read and
 * subscribe again"; an error a resolver raises is one result like any other, which the router
 * passes on over either transport.
 */
export function endingOnLoss(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getSubscriptionType()?.getFields() ?? {})) {
    const { subscribe } = field;
    if (!subscribe) continue;
    const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
    field.subscribe = async (...args) => {
      const source: unknown = await subscribe(...args);
      return isAsyncIterator(source) ? lossAsLastEvent(source) : source;
    };
    field.resolve = (root, ...rest) => {
      if (root instanceof Lost) throw root.error;
      return resolve(root, ...rest);
    };
  }
  return schema;
}

function isAsyncIterator(value: unknown): value is AsyncIterableIterator<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value && typeof (value as { next?: unknown }).next === 'function';
}

/** The events of `source`; its `events_lost` failure as one more event, the last. */
function lossAsLastEvent(source: AsyncIterableIterator<unknown>): AsyncIterableIterator<unknown> {
  let lost = false;
  return {
    async next() {
      if (lost) return { value: undefined, done: true };
      try {
        return await source.next();
      } catch (error) {
        if (!(error instanceof EventsLostError)) throw error;
        lost = true;
        return { value: new Lost(error), done: false };
      }
    },
    return: async () => (await source.return?.()) ?? { value: undefined, done: true },
    throw: async (error?: unknown) => (await source.throw?.(error)) ?? { value: undefined, done: true },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
