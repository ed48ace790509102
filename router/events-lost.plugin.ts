import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import type { ExecutionResult } from 'graphql';
import { EVENTS_LOST } from '../subgraphs/shared/errors.js';

/**
 * A subscription's `events_lost` result goes out with `data: null`, as the subgraph answered it.
 * The router's runtime keeps a subscription's data between events and leaves it as it was when
 * an event's data is null, so the client got the previous event again, beside the error that
 * says events are missing: a client applying it would apply a change twice.
 */
export function useEventsLost(): GatewayPlugin {
  return {
    onSubscribe: () => ({
      onSubscribeResult: () => ({
        onNext: ({ result, setResult }) => {
          const { errors } = result as ExecutionResult;
          if (errors?.some((error) => error.extensions?.code === EVENTS_LOST)) setResult({ ...result, data: null } as never);
        },
      }),
    }),
  };
}
