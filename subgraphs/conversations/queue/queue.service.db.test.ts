import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seedTenant, type Tenant } from '../../../test/kit/seed.js';
import { accountsFacade } from '../../accounts/facade.js';
import type { Actor } from '../../shared/auth/actor.js';
import { migrate } from '../../shared/db/migrate.js';
import { ormOptions } from '../../shared/db/orm.js';
import { createLogger } from '../../shared/logger.js';
import { MemoryPubSub } from '../../shared/pubsub/memory.pubsub.js';
import { Conversation, ConversationStatus } from '../conversations/conversation.entity.js';
import { deleteEnvironmentData } from '../environment-data.deletion.js';
import { conversations } from '../index.js';
import { QueueItem } from './queue-item.entity.js';
import { MAX_QUEUE_MESSAGES, QueueService } from './queue.service.js';

// Messages are queued on conversations whose run is in progress, as a run leaves them: queuing on
// an idle one starts the model at once, which the stack's suites test with the fake LLM.
let orm: MikroORM;
let owner: Tenant;
let actor: Actor;
const service = () => new QueueService(orm.em.fork(), new MemoryPubSub(), createLogger('silent'));

beforeAll(async () => {
  owner = await seedTenant(inject('databaseUrl'), 'queue-svc');
  orm = await MikroORM.init(ormOptions(conversations, inject('databaseUrl'), 2));
  await migrate(conversations, orm, createLogger('silent'));
  const ids = await accountsFacade.userIdsByUuid(orm.em.fork(), [owner.user_uuid]);
  actor = { kind: 'personal_api_key', user: { id: ids.get(owner.user_uuid)!, uuid: owner.user_uuid }, scopes: ['*'], organizations: { [owner.organization_id]: 15 } };
});
// Nothing is left running: the run workers of the stacks other suites start would end or run it.
afterAll(async () => {
  if (orm) await deleteEnvironmentData(orm.em.fork(), [owner.environment_id]);
  await orm?.close();
});

/** A conversation of the owner with a run in progress. */
async function busyConversation(): Promise<Conversation> {
  const conversation = Object.assign(new Conversation(), {
    environment_id: owner.environment_id,
    project_id: owner.project_id,
    user_id: actor.user!.id,
    title: 'Busy',
    status: ConversationStatus.in_progress,
    run_id: randomUUID(),
    run_heartbeat_at: new Date(),
  });
  await orm.em.fork().persistAndFlush(conversation);
  return conversation;
}

const of = (conversation: Conversation) => ({ project_id: conversation.environment_id, conversation: conversation.id });
const waiting = (conversation: Conversation) => orm.em.fork().find(QueueItem, { conversation_id: conversation.id }, { orderBy: { created_at: 'asc', id: 'asc' } });

describe(QueueService.name, () => {
  describe('enqueue', () => {
    it('keeps the scopes of the key that queued a message, for the run that will answer it', async () => {
      const conversation = await busyConversation();
      const narrow: Actor = { ...actor, scopes: ['conversation:write', 'insight:read'] };
      const answered = await service().enqueue(narrow, { ...of(conversation), content: 'Later, please', ui_context: { page: '/insights' } });
      expect(answered.messages).toEqual([expect.objectContaining({ content: 'Later, please', ui_context: { page: '/insights' } })]);
      expect(await waiting(conversation)).toEqual([expect.objectContaining({ content: 'Later, please', scopes: ['conversation:write', 'insight:read'] })]);
      expect((await orm.em.fork().findOneOrFail(Conversation, conversation.id)).status).toBe(ConversationStatus.in_progress);
    });

    it('lets only two messages wait, however many are queued at once', async () => {
      const conversation = await busyConversation();
      const outcomes = await Promise.allSettled(
        Array.from({ length: MAX_QUEUE_MESSAGES + 3 }, (_, index) => service().enqueue(actor, { ...of(conversation), content: `burst ${index}` })),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(MAX_QUEUE_MESSAGES);
      for (const outcome of outcomes.filter((candidate) => candidate.status === 'rejected')) {
        expect((outcome as PromiseRejectedResult).reason).toMatchObject({ extensions: { code: 'queue_full', status: 409 } });
      }
      expect(await waiting(conversation)).toHaveLength(MAX_QUEUE_MESSAGES);
    });
  });

  describe('update and delete', () => {
    it('answer 404 for a queued message of another conversation, and change nothing', async () => {
      const [mine, other] = await Promise.all([busyConversation(), busyConversation()]);
      const [item] = (await service().enqueue(actor, { ...of(mine), content: 'Original' })).messages;
      const elsewhere = { ...of(other), queue_id: item!.id };
      await expect(service().update(actor, { ...elsewhere, content: 'Rewritten' })).rejects.toMatchObject({ message: 'Queue message not found.', extensions: { status: 404 } });
      await expect(service().delete(actor, elsewhere)).rejects.toMatchObject({ message: 'Queue message not found.' });
      await expect(service().delete(actor, { ...of(mine), queue_id: 'not-a-uuid' })).rejects.toMatchObject({ extensions: { status: 404 } });
      expect((await waiting(mine)).map((queued) => queued.content)).toEqual(['Original']);
    });
  });

  describe('clear', () => {
    it("empties this conversation's queue only", async () => {
      const [cleared, kept] = await Promise.all([busyConversation(), busyConversation()]);
      await service().enqueue(actor, { ...of(cleared), content: 'Goes' });
      await service().enqueue(actor, { ...of(kept), content: 'Stays' });
      expect(await service().clear(actor, owner.environment_id, cleared.id)).toEqual({ messages: [], max_queue_messages: MAX_QUEUE_MESSAGES });
      expect((await waiting(kept)).map((queued) => queued.content)).toEqual(['Stays']);
    });
  });
});
