import type { DocumentNode, ExecutionResult, FormattedExecutionResult } from 'graphql';
import type { Actor } from './auth/actor.js';

// What a subgraph started in this process offers the router of this process (the router's local
// transport calls it; the subgraph runtime implements it in subgraph/local.ts).

/** An operation as the router's planner made it: the document object itself, never its text. */
export interface LocalRequest {
  document: DocumentNode;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** A subgraph of this process as a router of this process calls it, with the actor as it is (nothing signed). */
export interface LocalSubgraph {
  /** A query or mutation, answered as the router would read it from HTTP (errors as JSON objects). */
  execute: (request: LocalRequest, actor: Actor) => Promise<FormattedExecutionResult>;
  /**
   * A subscription. Events come as objects: no socket, and no JSON written and read again per
   * event and subscriber (a thousand subscribers of one conversation made that the most of what
   * delivering an event cost).
   */
  subscribe: (request: LocalRequest, actor: Actor) => Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult | FormattedExecutionResult>;
}
