/** A message on a topic that says events of it may be lost: its subscribers end with `events_lost`. */
export const LOST_NOTICE = '{"lost":true}';

/** One published event as subscribers receive it: a per-topic sequence number and the payload. */
export interface Envelope<T = unknown> {
  /**
   * Increases by one per event on a topic and never goes back, across restarts of Redis too (it
   * may jump forward after one); a client that reconnects after a gap compares it with the last it
   * saw and re-queries what it missed.
   */
  sequence: number;
  payload: T;
}

/** Expiring string values under keys (prefixed like the channels). */
export interface KeyValueStore {
  get(key: string): Promise<string | null>;
  getMany(keys: string[]): Promise<(string | null)[]>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
}

/**
 * Short-lived logs of recent events that subscribers joining late read back (replay), with
 * counters that number the events; both are shared by every process that shares the pub/sub.
 */
export interface EventLog {
  /** The next number of a counter, atomically across processes (1 first); the counter lives `ttlSeconds` past its last use. */
  nextSequence(counter: string, ttlSeconds: number): Promise<number>;
  /** Appends an entry; the log lives `ttlSeconds` past its last append. */
  append(log: string, entry: string, ttlSeconds: number): Promise<void>;
  /** Every entry of a log, oldest first (none once it expired). */
  read(log: string): Promise<string[]>;
}

/**
 * Topic-based publish/subscribe. Payloads travel as JSON in every implementation, so a subscriber
 * sees the same values (dates as ISO strings) whether the publisher is in this process or another.
 */
export interface PubSub {
  /**
   * Announces a change that is already saved, so it never throws: a failed delivery is logged and
   * answered with sequence 0, and the topic's subscribers end with {@link EventsLostError} before
   * they could receive a later event (they catch up by re-querying).
   */
  publish(topic: string, payload: unknown): Promise<number>;
  /**
   * The topic's events from now on. The iterator throws {@link EventsLostError} (and ends) when
   * events may not have reached it; {@link resubscribing} suits a follower that only needs to know.
   */
  subscribe<T = unknown>(topic: string): AsyncIterableIterator<Envelope<T>>;
  /** Whether events can flow now (for /healthz). */
  healthy(): boolean;
  /**
   * The shared key-value store on the same connection (Redis), for caches that every process must
   * see; undefined for the in-process pub/sub, where callers keep such data in PostgreSQL.
   */
  readonly store?: KeyValueStore;
  /** Replay logs and counters, in the same place as the events (Redis, or this process). */
  readonly replay: EventLog;
  /**
   * Resolves once every subscription asked for so far receives events: a subscriber that reads a
   * replay log after this misses nothing published in between.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A push queue exposed as an async iterator; `onReturn` runs once when the consumer stops or the
 * queue ends. `fail` ends it with an error, which the consumer gets after what was already pushed.
 * Shared by the implementations so that every one ends a subscription the same way.
 */
export function pushIterator<T>(onReturn: () => void): {
  iterator: AsyncIterableIterator<T>;
  push: (value: T) => void;
  end: () => void;
  fail: (error: Error) => void;
} {
  const queue: T[] = [];
  const waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: Error) => void }[] = [];
  let done = false;
  let failure: Error | undefined;
  const finish = () => {
    if (done) return;
    done = true;
    onReturn();
    for (const { resolve } of waiting.splice(0)) resolve({ value: undefined, done: true });
  };
  const iterator: AsyncIterableIterator<T> = {
    next: () => {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
      if (failure) {
        const error = failure;
        failure = undefined;
        return Promise.reject(error);
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return: () => {
      finish();
      queue.length = 0;
      failure = undefined;
      return Promise.resolve({ value: undefined, done: true });
    },
    throw: (error?: unknown) => {
      finish();
      return Promise.reject(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  const push = (value: T) => {
    if (done) return;
    const next = waiting.shift();
    if (next) next.resolve({ value, done: false });
    else queue.push(value);
  };
  const fail = (error: Error) => {
    if (done) return;
    // A consumer waiting has nothing queued before the error: it gets it now.
    const next = waiting.shift();
    if (next) next.reject(error);
    else failure = error;
    finish();
  };
  return { iterator, push, end: finish, fail };
}
