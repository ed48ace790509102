/** Conversations offer nothing to other subgraphs yet; this is where they would. */
export const conversationsFacade = {};
