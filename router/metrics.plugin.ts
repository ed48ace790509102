import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { recordRequest, subgraphCallDuration } from '../subgraphs/shared/metrics.js';
import { perOperation } from '../subgraphs/shared/per-operation.js';

/** The origin of the requests the platform makes of its own router (a Request's URL is normalised). */
const INTERNAL_ORIGIN = 'http://router/';

/** Root fields named in an operation's label; more are counted. */
const LABEL_FIELDS = 3;

/**
 * The operation of a GraphQL request as a metrics label: its type and root fields (`query
 * batch_exports`). Root fields are the schema's, so the label set stays bounded; a field the
 * schema lacks never reaches execution, and the request stays `unknown`.
 */
function operationLabel(document: DocumentNode, operationName?: string | null): string {
  return labelOnce(document, operationName ?? undefined);
}

/** Yoga hands over one parsed document per distinct query text: its label is worked out once. */
const labelOnce = perOperation(labelOf);

function labelOf(document: DocumentNode, operationName?: string | null): string {
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operations.find((candidate) => !operationName || candidate.name?.value === operationName) ?? operations[0];
  if (!operation) return 'unknown';
  const fields = [...new Set(operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD && !selection.name.value.startsWith('__') ? [selection.name.value] : [])))].sort();
  const named = fields.slice(0, LABEL_FIELDS).join(',');
  return `${operation.operation} ${fields.length > LABEL_FIELDS ? `${named},+${fields.length - LABEL_FIELDS}` : named || '__typename'}`;
}

/** Each request's operation label, once its execution began (see `useRequestMetrics`). */
const labels = new WeakMap<Request, string>();

/**
 * A request's operation as its metrics label: set when its execution began, after every plugin's
 * `onExecute` before this one (authentication among them) let it; `unknown` for a request refused
 * before. The router's fast path counts its requests by it too.
 */
export function executedOperation(request: Request): string {
  return labels.get(request) ?? 'unknown';
}

/**
 * Requests over HTTP by operation, status and duration, and the time of each subgraph call (in
 * process or over HTTP). graphql-ws operations are counted by the listener's gauges instead.
 */
export function useRequestMetrics(): GatewayPlugin {
  const started = new WeakMap<Request, number>();
  const label = (context: unknown, document: DocumentNode, operationName?: string | null) => {
    const request = (context as { request?: Request } | undefined)?.request;
    if (request) labels.set(request, operationLabel(document, operationName));
  };
  return {
    onRequest({ request }) {
      // The REST layer's calls (and the listener's warm-up) come from within, to http://router/: they are counted as REST.
      if (!request.url.startsWith(INTERNAL_ORIGIN)) started.set(request, performance.now());
    },
    onExecute({ args }) {
      label(args.contextValue, args.document, args.operationName);
    },
    onSubscribe({ args }) {
      label(args.contextValue, args.document, args.operationName);
    },
    onResponse({ request, response }) {
      const at = started.get(request);
      if (at !== undefined) recordRequest('graphql', executedOperation(request), response.status, at);
    },
    onSubgraphExecute({ subgraphName }) {
      const at = performance.now();
      return ({ result }) => {
        if (!(Symbol.asyncIterator in (result as object))) subgraphCallDuration.observe({ subgraph: subgraphName }, (performance.now() - at) / 1000);
      };
    },
  };
}
