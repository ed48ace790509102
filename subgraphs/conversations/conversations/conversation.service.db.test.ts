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
import { controlTopic } from '../assistant/run.control.js';
import { deleteEnvironmentData } from '../environment-data.deletion.js';
import { conversations } from '../index.js';
import { Conversation, ConversationStatus, ConversationType } from './conversation.entity.js';
import { ConversationService } from './conversation.service.js';
import { loadMessages } from './message.repository.js';

// The service asks the projects subgraph's tables where an environment lives, so the tenants are
// real; the conversations are written as a run leaves them (no model is called here: starting one
// with content is the stack's suites' part, with the fake LLM).
let orm: MikroORM;
let owner: Tenant;
let stranger: Tenant;
/** A tenant whose environment only the list test writes to. */
let lister: Tenant;
let actor: Actor;
let listerActor: Actor;
/** Another member of the owner's organization. */
let colleague: Actor;
let strangerActor: Actor;
const pubsub = new MemoryPubSub();
const service = () => new ConversationService(orm.em.fork(), pubsub, createLogger('silent'));

beforeAll(async () => {
  const databaseUrl = inject('databaseUrl');
  [owner, stranger, lister] = await Promise.all(['conv-svc-owner', 'conv-svc-stranger', 'conv-svc-list'].map((label) => seedTenant(databaseUrl, label)));
  orm = await MikroORM.init(ormOptions(conversations, databaseUrl, 2));
  await migrate(conversations, orm, createLogger('silent'));
  const ids = await accountsFacade.userIdsByUuid(orm.em.fork(), [owner.user_uuid, stranger.user_uuid, lister.user_uuid]);
  const actorOf = (uuid: string, organizations: Record<string, number>): Actor => ({ kind: 'personal_api_key', user: { id: ids.get(uuid)!, uuid }, scopes: ['*'], organizations });
  actor = actorOf(owner.user_uuid, { [owner.organization_id]: 15 });
  strangerActor = actorOf(stranger.user_uuid, { [stranger.organization_id]: 15 });
  colleague = actorOf(stranger.user_uuid, { [stranger.organization_id]: 15, [owner.organization_id]: 1 });
  listerActor = actorOf(lister.user_uuid, { [lister.organization_id]: 15 });
});
// Nothing is left running: the run workers of the stacks other suites start would end or run it.
afterAll(async () => {
  if (orm) await deleteEnvironmentData(orm.em.fork(), [owner, stranger, lister].map((tenant) => tenant.environment_id));
  await orm?.close();
});

/** A conversation as the API leaves it: idle and titled unless told otherwise. */
async function conversationOf(who: Actor, tenant: Tenant, changes: Partial<Conversation> = {}): Promise<Conversation> {
  const conversation = Object.assign(new Conversation(), {
    environment_id: tenant.environment_id,
    project_id: tenant.project_id,
    user_id: who.user!.id,
    title: 'A question',
    ...changes,
  });
  await orm.em.fork().persistAndFlush(conversation);
  return conversation;
}
const busy = () => ({ status: ConversationStatus.in_progress, run_id: randomUUID(), run_heartbeat_at: new Date() });
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);
const stored = (id: string) => orm.em.fork().findOneOrFail(Conversation, id);

describe(ConversationService.name, () => {
  describe('list', () => {
    it("lists the caller's titled assistant, deep research and slack conversations of the environment, most recently active first", async () => {
      const older = await conversationOf(listerActor, lister, { updated_at: hoursAgo(3) });
      const newest = await conversationOf(listerActor, lister, { updated_at: hoursAgo(1) });
      const research = await conversationOf(listerActor, lister, { type: ConversationType.deep_research, updated_at: hoursAgo(2) });
      const slack = await conversationOf(listerActor, lister, { type: ConversationType.slack, updated_at: hoursAgo(4) });
      await conversationOf(listerActor, lister, { title: null });
      await conversationOf(listerActor, lister, { type: ConversationType.tool_call });
      await conversationOf(listerActor, lister, { is_internal: true });
      await conversationOf(actor, lister);
      // The lister's own, but in another environment.
      await conversationOf(listerActor, stranger);

      const listed = await service().list(listerActor, { project_id: lister.environment_id });
      expect(listed.results.map((conversation) => conversation.id)).toEqual([newest.id, research.id, older.id, slack.id]);
      expect(listed.count).toBe(4);
      const page = await service().list(listerActor, { project_id: lister.environment_id, limit: 2, offset: 1 });
      expect(page).toMatchObject({ count: 4, next: '?limit=2&offset=3' });
      expect(page.results.map((conversation) => conversation.id)).toEqual([research.id, older.id]);
    });

    it("hides the owner's conversations from another member of the organization", async () => {
      const mine = await conversationOf(actor, owner);
      const seen = await service().list(colleague, { project_id: owner.environment_id, limit: 100 });
      expect(seen.results.map((conversation) => conversation.id)).not.toContain(mine.id);
      expect(seen.count).toBe(0);
    });

    it("answers 403 for another organization's environment and 404 for one that does not exist", async () => {
      await expect(service().list(strangerActor, { project_id: owner.environment_id })).rejects.toMatchObject({ extensions: { status: 403 } });
      await expect(service().list(actor, { project_id: 2_000_000_000 })).rejects.toMatchObject({ extensions: { status: 404 } });
    });
  });

  describe('get', () => {
    it("answers 404, worded as a missing one, for another user's conversation, another environment's and a malformed id", async () => {
      const [mine, theirs] = await Promise.all([conversationOf(actor, owner), conversationOf(strangerActor, stranger)]);
      for (const [who, id] of [[colleague, mine.id], [actor, theirs.id], [actor, 'not-a-uuid']] as const) {
        await expect(service().get(who, owner.environment_id, id)).rejects.toMatchObject({ message: 'Not found.', extensions: { status: 404 } });
      }
    });
  });

  describe('start', () => {
    it('names the run in progress without content, and writes nothing', async () => {
      const running = await conversationOf(actor, owner, busy());
      const attached = await service().start(actor, { project_id: owner.environment_id, conversation: running.id });
      expect(attached).toMatchObject({ conversation: running.id, run_id: running.run_id, status: 'in_progress', content: null });
      expect((await loadMessages(orm.em.fork(), [running.id])).get(running.id)).toEqual([]);
      expect((await stored(running.id)).updated_at).toEqual(running.updated_at);
    });

    it("refuses another user's conversation, and one of another environment as not found", async () => {
      const [mine, theirs] = await Promise.all([conversationOf(actor, owner, busy()), conversationOf(strangerActor, stranger, busy())]);
      await expect(service().start(colleague, { project_id: owner.environment_id, conversation: mine.id })).rejects.toMatchObject({
        message: "Cannot access other users' conversations",
        extensions: { status: 400 },
      });
      await expect(service().start(actor, { project_id: owner.environment_id, conversation: theirs.id })).rejects.toMatchObject({ extensions: { status: 404 } });
    });
  });

  describe('append', () => {
    it('stores the message last and makes the conversation the most recently active', async () => {
      const own = await conversationOf(actor, owner, { updated_at: hoursAgo(48) });
      await conversationOf(actor, owner, { updated_at: hoursAgo(24) });
      const appended = await service().append(actor, { project_id: owner.environment_id, conversation: own.id, content: 'Chart rendered' });
      expect((await loadMessages(orm.em.fork(), [own.id])).get(own.id)).toEqual([{ type: 'ai', id: appended.id, content: 'Chart rendered' }]);
      expect((await service().list(actor, { project_id: owner.environment_id, limit: 1 })).results[0]!.id).toBe(own.id);
    });

    it("writes nothing to another user's conversation", async () => {
      const mine = await conversationOf(actor, owner);
      await expect(service().append(colleague, { project_id: owner.environment_id, conversation: mine.id, content: 'Injected' })).rejects.toMatchObject({ extensions: { status: 404 } });
      expect((await loadMessages(orm.em.fork(), [mine.id])).get(mine.id)).toEqual([]);
    });
  });

  describe('cancel', () => {
    it('asks the run in progress to stop: canceling, with a control message naming the run', async () => {
      const running = await conversationOf(actor, owner, busy());
      const control = pubsub.subscribe(controlTopic(running.id));
      expect(await service().cancel(actor, owner.environment_id, running.id)).toMatchObject({ status: 'canceling' });
      expect((await control.next()).value.payload).toEqual({ run_id: running.run_id, action: 'cancel' });
      expect((await stored(running.id)).status).toBe(ConversationStatus.canceling);
      await control.return!();
    });

    it('leaves an idle conversation idle and asks no run to stop', async () => {
      const idle = await conversationOf(actor, owner);
      const control = pubsub.subscribe(controlTopic(idle.id));
      expect(await service().cancel(actor, owner.environment_id, idle.id)).toMatchObject({ status: 'idle' });
      // A marker: a control message of the cancel would come before it.
      await pubsub.publish(controlTopic(idle.id), { marker: true });
      expect((await control.next()).value.payload).toEqual({ marker: true });
      await control.return!();
    });

    it("stops no run of another user's conversation", async () => {
      const running = await conversationOf(actor, owner, busy());
      await expect(service().cancel(colleague, owner.environment_id, running.id)).rejects.toMatchObject({ extensions: { status: 404 } });
      expect((await stored(running.id)).status).toBe(ConversationStatus.in_progress);
    });
  });
});
