/** LLM analytics offers nothing to other subgraphs yet; this is where it would. */
export const llmAnalyticsFacade = {};
