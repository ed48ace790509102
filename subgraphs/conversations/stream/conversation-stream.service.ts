import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { ownConversationById } from '../conversations/conversation.access.js';
import { Conversation, ConversationStatus } from '../conversations/conversation.entity.js';
import { optionalUuid } from '../conversations/conversation.rules.js';
import type { StreamEvent } from './conversation-stream.event.js';
import { followConversation } from './conversation-stream.js';

/** Following a conversation live: for its owner only, checked once when the subscription starts. */
export class ConversationStreamService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
  ) {}

  async follow(actor: Actor, conversationId: string, run: string | null | undefined): Promise<AsyncIterableIterator<StreamEvent>> {
    const runId = optionalUuid(run, 'run');
    const conversation = await ownConversationById(this.em, actor, conversationId);
    const currentRun = async () => {
      const fresh = await this.em.fork().findOne(Conversation, { id: conversation.id }, { fields: ['status', 'run_id'] });
      return fresh && fresh.status !== ConversationStatus.idle ? fresh.run_id : null;
    };
    return followConversation(this.pubsub, conversation.id, currentRun, runId);
  }
}
