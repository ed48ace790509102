import { EventsLostError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { pushIterator } from '../../shared/pubsub/pubsub.js';
import { endsRun, type StreamEvent } from './conversation-stream.event.js';

/** A run's log is read back for an hour (a subscriber joining late, a REST client re-attaching). */
const RUN_LOG_TTL_SECONDS = 3600;
/** The counter numbers a conversation's events for a week past its last one. */
const COUNTER_TTL_SECONDS = 7 * 24 * 3600;

const topicOf = (conversationId: string) => `conversation_stream:${conversationId}`;
const logOf = (runId: string) => `conversation_run:${runId}`;

type Unnumbered = Omit<StreamEvent, 'sequence' | 'conversation' | 'run_id'>;

/**
 * Writes one run's events: each is numbered (the conversation's counter), appended to the run's
 * log and then published, one after another, so that the log always holds every event a
 * subscriber may have missed. Chunks waiting behind a slow write are merged into one.
 */
export class StreamWriter {
  private readonly pending: Unnumbered[] = [];
  private draining: Promise<void> | null = null;

  constructor(
    private readonly pubsub: PubSub,
    private readonly conversationId: string,
    private readonly runId: string,
    private readonly log: Logger,
  ) {}

  /** Queues an event; resolves once it (and everything before it) is published. */
  emit(event: Unnumbered): Promise<void> {
    const last = this.pending.at(-1);
    if (event.delta != null && last?.delta != null && last.message_id === event.message_id) last.delta += event.delta;
    else this.pending.push({ ...event });
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  /** Resolves once every queued event is published. */
  flushed(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    const { replay } = this.pubsub;
    while (this.pending.length > 0) {
      const event = this.pending.shift()!;
      try {
        const sequence = await replay.nextSequence(topicOf(this.conversationId), COUNTER_TTL_SECONDS);
        const numbered: StreamEvent = { sequence, conversation: this.conversationId, run_id: this.runId, ...event };
        await replay.append(logOf(this.runId), JSON.stringify(numbered), RUN_LOG_TTL_SECONDS);
        await this.pubsub.publish(topicOf(this.conversationId), numbered);
        // Let the delivery of this event to every subscriber run before the next is published
        // (in process it is queued work, not I/O): chunks that come meanwhile go out as one, so a
        // thousand subscribers cost a thousand deliveries per turn of the loop, not per chunk.
        await new Promise((resolve) => setImmediate(resolve));
      } catch (error) {
        // The run goes on and its messages are stored; subscribers re-read the conversation.
        this.log.error({ err: error, conversation: this.conversationId }, 'conversation event not published');
      }
    }
  }
}

/**
 * A conversation's events for one subscriber: first what the run in progress (or `run`) already
 * produced, from its log, then live ones, skipping any already delivered and filling a gap from
 * the log. The subscription is live before the log is read, so nothing falls between the two.
 * With `run`, only that run's events, ending after its last (at once for a run long over).
 */
export function followConversation(
  pubsub: PubSub,
  conversationId: string,
  currentRun: () => Promise<string | null>,
  run: string | null,
): AsyncIterableIterator<StreamEvent> {
  const live = pubsub.subscribe<StreamEvent>(topicOf(conversationId));
  const { iterator, push, end, fail } = pushIterator<StreamEvent>(() => void live.return?.());
  let last: number | null = null;
  const deliver = (event: StreamEvent): boolean => {
    if (run && event.run_id !== run) return false;
    if (last !== null && event.sequence <= last) return false;
    push(event);
    last = event.sequence;
    return run !== null && endsRun(event);
  };
  // A run id is the caller's to name: only runs of the conversation whose access was checked are read.
  const readLog = async (runId: string) =>
    (await pubsub.replay.read(logOf(runId))).map((entry) => JSON.parse(entry) as StreamEvent).filter((event) => event.conversation === conversationId);
  void (async () => {
    await pubsub.ready();
    const current = await currentRun();
    const replayed = run ?? current;
    const logged = replayed ? await readLog(replayed) : [];
    // A run asked for that is over and whose log has expired has nothing more to give.
    if (run && run !== current && logged.length === 0) return;
    for (const event of logged) if (deliver(event)) return;
    for await (const { payload: event } of live) {
      // A gap since the last event delivered, or a first live event of a run whose log was not
      // read (it ended, or began, between the subscription and the look at the current run).
      if (last === null ? event.run_id !== replayed : event.sequence > last + 1) {
        for (const missed of await readLog(event.run_id)) if (missed.sequence < event.sequence && deliver(missed)) return;
      }
      if (deliver(event)) return;
    }
  })()
    // A loss ends the stream with its error: the log may not hold what was missed (it lives in Redis too).
    .catch((error: unknown) => error instanceof EventsLostError && fail(error))
    .finally(end);
  return iterator;
}
