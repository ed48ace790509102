/**
 * Batch exports offer nothing to other subgraphs: they read events and persons through the
 * ingestion and endpoints facades, and the deletion job reaches their data through the subgraph
 * definition (`deleteEnvironmentData`).
 */
export const batchExportsFacade = {};
