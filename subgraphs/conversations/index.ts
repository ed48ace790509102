import { defineSubgraph } from '../shared/subgraph/define.js';
import { startRunWorker } from './assistant/run.worker.js';
import { deleteEnvironmentData } from './environment-data.deletion.js';
import { Conversation } from './conversations/conversation.entity.js';
import { UserStub } from './conversations/user.stub.js';
import { ConversationResolver } from './conversations/conversation.resolver.js';
import { migrations } from './migrations/index.js';
import { QueueItem } from './queue/queue-item.entity.js';
import { QueueResolver } from './queue/queue.resolver.js';
import { ConversationStreamResolver } from './stream/conversation-stream.resolver.js';

export const conversations = defineSubgraph({
  name: 'conversations',
  entities: [Conversation, QueueItem],
  migrations,
  // The append-only message log: written with plain SQL, ordered by a bigserial (see message.repository.ts).
  unmanagedTables: [/^messages$/],
  resolvers: [ConversationResolver, QueueResolver, ConversationStreamResolver],
  orphanedTypes: [UserStub],
  deleteEnvironmentData,
  startWorker: startRunWorker,
});
