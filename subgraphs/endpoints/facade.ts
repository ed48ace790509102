/**
 * Saved endpoints offer nothing to other subgraphs yet. The HogQL compiler (`hogql/`) is the
 * likely first offer: batch exports take a `hogql_query`.
 */
export const endpointsFacade = {};
