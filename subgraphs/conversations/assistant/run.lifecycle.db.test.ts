import { randomInt, randomUUID } from 'node:crypto';
import { LockMode, MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate } from '../../shared/db/migrate.js';
import { ormOptions } from '../../shared/db/orm.js';
import { createLogger } from '../../shared/logger.js';
import { Conversation, ConversationStatus } from '../conversations/conversation.entity.js';
import { loadMessages, type StoredMessage } from '../conversations/message.repository.js';
import { deleteEnvironmentData } from '../environment-data.deletion.js';
import { conversations } from '../index.js';
import { QueueItem } from '../queue/queue-item.entity.js';
import { endRun, heartbeat, idleWithQueue, STALE_AFTER_SECONDS, staleRuns } from './run.lifecycle.js';

// What happens between two runs, as the run of any process leaves a conversation: no model is
// called (the stack's suites run whole conversations with the fake LLM). Nothing here asks where an
// environment lives, so the conversations are of an environment id no tenant has. The run workers
// of the stacks other suites start sweep this database too: a state they would act on (a silent
// run, a queue on an idle conversation) is only ever seen inside a transaction of the test's own.
const ENVIRONMENT = -1 - randomInt(1_000_000_000);
let orm: MikroORM;

beforeAll(async () => {
  orm = await MikroORM.init(ormOptions(conversations, inject('databaseUrl'), 2));
  await migrate(conversations, orm, createLogger('silent'));
});
afterAll(async () => {
  if (orm) await deleteEnvironmentData(orm.em.fork(), [ENVIRONMENT]);
  await orm?.close();
});

/** A conversation whose run is in progress, begun with every scope, and messages queued after it (oldest first). */
async function running(queued: { content: string; scopes: string[] }[] = []): Promise<Conversation> {
  const em = orm.em.fork();
  const conversation = Object.assign(new Conversation(), {
    environment_id: ENVIRONMENT,
    project_id: ENVIRONMENT,
    user_id: 1,
    title: 'Busy',
    status: ConversationStatus.in_progress,
    run_id: randomUUID(),
    run_heartbeat_at: new Date(),
    run_scopes: ['*'],
  });
  em.persist(conversation);
  queued.forEach((item, index) => em.persist(Object.assign(new QueueItem(), { ...item, conversation_id: conversation.id, created_at: new Date(Date.UTC(2026, 0, 1, 0, index)) })));
  await em.flush();
  return conversation;
}

class RolledBack extends Error {}

const answer = (content: string): StoredMessage => ({ type: 'ai', id: randomUUID(), content });
const stored = (id: string) => orm.em.fork().findOneOrFail(Conversation, id);
const contents = async (id: string) => ((await loadMessages(orm.em.fork(), [id])).get(id) ?? []).map((message) => message.content);
const waiting = async (id: string) => (await orm.em.fork().find(QueueItem, { conversation_id: id })).map((item) => item.content);

describe('endRun', () => {
  it('runs the oldest queued message next, with the scopes of the key that queued it, after the ended run\'s messages', async () => {
    const conversation = await running([
      { content: 'first queued', scopes: ['conversation:write', 'insight:read'] },
      { content: 'second queued', scopes: ['*'] },
    ]);
    const ended = await endRun(orm.em, { conversationId: conversation.id, runId: conversation.run_id!, ending: 'finished' }, [answer('The answer')]);
    expect(ended.ended).toBe(true);
    expect(ended.next).toMatchObject({ conversationId: conversation.id, scopes: ['conversation:write', 'insight:read'], human: { type: 'human', content: 'first queued' } });
    expect(ended.next!.runId).not.toBe(conversation.run_id);
    expect(await stored(conversation.id)).toMatchObject({ status: ConversationStatus.in_progress, run_id: ended.next!.runId, run_scopes: ['conversation:write', 'insight:read'] });
    expect(await contents(conversation.id)).toEqual(['The answer', 'first queued']);
    expect(await waiting(conversation.id)).toEqual(['second queued']);
  });

  it('starts nothing when its process shuts down: the conversation is idle and keeps its queue for the next process', async () => {
    const conversation = await running([{ content: 'waits', scopes: ['*'] }]);
    const ended = await endRun(orm.em, { conversationId: conversation.id, runId: conversation.run_id!, ending: 'shutdown' }, [answer('Partial')]);
    expect(ended).toEqual({ ended: true, next: null });
    // Held, so that no other stack's worker runs the queue meanwhile; emptied before it is let go.
    await orm.em.fork().transactional(async (tx) => {
      const held = await tx.findOneOrFail(Conversation, conversation.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      expect(held).toMatchObject({ status: ConversationStatus.idle, run_heartbeat_at: null });
      expect((await tx.find(QueueItem, { conversation_id: conversation.id })).map((item) => item.content)).toEqual(['waits']);
      expect(await idleWithQueue(tx, 10_000)).toContain(conversation.id);
      await tx.nativeDelete(QueueItem, { conversation_id: conversation.id });
    });
    expect(await contents(conversation.id)).toEqual(['Partial']);
  });

  it('changes nothing for a run that is no longer the current one', async () => {
    const conversation = await running([{ content: 'waits', scopes: ['*'] }]);
    const ended = await endRun(orm.em, { conversationId: conversation.id, runId: randomUUID(), ending: 'interrupted' }, [answer('From a stale run')]);
    expect(ended).toEqual({ ended: false, next: null });
    expect(await stored(conversation.id)).toMatchObject({ status: ConversationStatus.in_progress, run_id: conversation.run_id });
    expect(await contents(conversation.id)).toEqual([]);
    expect(await waiting(conversation.id)).toEqual(['waits']);
  });
});

describe('heartbeat', () => {
  it('keeps only the current run alive, and tells it when it is asked to stop', async () => {
    const conversation = await running();
    expect(await heartbeat(orm.em.fork(), conversation.id, randomUUID())).toBeNull();
    expect(await heartbeat(orm.em.fork(), conversation.id, conversation.run_id!)).toBe(ConversationStatus.in_progress);
    await orm.em.fork().nativeUpdate(Conversation, { id: conversation.id }, { status: ConversationStatus.canceling });
    expect(await heartbeat(orm.em.fork(), conversation.id, conversation.run_id!)).toBe(ConversationStatus.canceling);
  });
});

describe('staleRuns', () => {
  it(`finds runs silent for over ${STALE_AFTER_SECONDS} seconds, and not live or ended ones`, async () => {
    const [silent, live, ended] = await Promise.all([running(), running(), running()]);
    const longAgo = new Date(Date.now() - (STALE_AFTER_SECONDS + 5) * 1000);
    // Rolled back: no other stack's worker sees these runs silent, and ends them.
    await orm.em
      .fork()
      .transactional(async (tx) => {
        await tx.nativeUpdate(Conversation, { id: { $in: [silent.id, ended.id] } }, { run_heartbeat_at: longAgo });
        await tx.nativeUpdate(Conversation, { id: ended.id }, { status: ConversationStatus.idle });
        const stale = (await staleRuns(tx, 10_000)).map((row) => row.id);
        expect(stale).toContain(silent.id);
        expect(stale).not.toContain(live.id);
        expect(stale).not.toContain(ended.id);
        throw new RolledBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
  });
});
