import { LockMode } from '@mikro-orm/core';
import type { Worker, WorkerRuntime } from '../../shared/subgraph/define.js';
import { startPeriodicWorker } from '../../shared/subgraph/periodic.worker.js';
import { Conversation, ConversationStatus } from '../conversations/conversation.entity.js';
import { StreamEventKind } from '../stream/conversation-stream.event.js';
import { StreamWriter } from '../stream/conversation-stream.js';
import { AssistantRun } from './assistant.run.js';
import { endRun, idleWithQueue, runQueued, staleRuns } from './run.lifecycle.js';
import { localRuns } from './run.registry.js';
import type { RunContext } from './run.start.js';

const EVERY_MS = 10_000;
const PER_PASS = 100;

/**
 * Keeps conversations moving when a process could not: a run whose heartbeat stopped (its process
 * crashed) is ended as interrupted, and a queue left waiting on an idle conversation (its process
 * stopped) runs. On stop, this process's runs end as interrupted, keeping what they produced.
 */
export function startRunWorker({ orm, pubsub, log }: WorkerRuntime): Worker {
  const context = (): RunContext => ({ em: orm.em.fork(), pubsub, log });
  const worker = startPeriodicWorker({
    run: async (stopped) => {
      for (const stale of await staleRuns(orm.em.fork(), PER_PASS)) {
        if (stopped()) return;
        const { ended, next } = await endRun(orm.em, { conversationId: stale.id, runId: stale.run_id, ending: 'interrupted' }, []);
        if (!ended) continue;
        log.warn({ conversation: stale.id, run: stale.run_id }, 'assistant run found dead; ended as interrupted');
        const status = next ? ConversationStatus.in_progress : ConversationStatus.idle;
        await new StreamWriter(pubsub, stale.id, stale.run_id, log).emit({ kind: StreamEventKind.status, status, detail: 'interrupted' });
        if (next) await AssistantRun.launch(context(), next);
      }
      for (const id of await idleWithQueue(orm.em.fork(), PER_PASS)) {
        if (stopped()) return;
        const next = await orm.em.fork().transactional(async (tx) => {
          const conversation = await tx.findOne(Conversation, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
          return conversation?.status === ConversationStatus.idle ? runQueued(tx, conversation) : null;
        });
        if (next) await AssistantRun.launch(context(), next);
      }
    },
    everyMs: EVERY_MS,
    log,
    failure: 'conversation run worker pass failed',
  });
  return {
    drain: worker.drain,
    stop: async () => {
      await worker.stop();
      await Promise.allSettled([...localRuns(pubsub)].map((run) => run.stop('shutdown')));
    },
  };
}
