/**
 * Nothing of ingestion is for other subgraphs: the projects subgraph's deletion job reaches its
 * data through the subgraph definition (`deleteEnvironmentData`).
 */
export const ingestionFacade = {};
