import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { percentiles } from './load.runner.js';
import { answerOf, now } from './conversations.model.js';

/** The subscription of the issue: one conversation's events, as a browser follows it. */
export const FOLLOW = 'subscription($c: ID!) { conversation_stream(conversation: $c) { sequence kind delta } }';

/** One event as a subscriber received it, with when (bench clock, ms). */
export interface Received {
  sequence: number;
  kind: string;
  delta: string | null;
  at: number;
}

/** One subscription of the conversation. */
export interface Subscriber {
  socket: number;
  events: Received[];
  /** Results without data, subscription errors, and completions (none expected while the bench runs). */
  problems: string[];
}

/** The sockets and the subscriptions over them. */
export interface Audience {
  clients: Client[];
  subscribers: Subscriber[];
  /** How long each socket took to be acknowledged (connection_init → connection_ack), ms. */
  connectMs: number[];
  /** Sockets that closed after their acknowledgement: when (bench clock), code and reason. */
  closedAfterConnect: { at: number; what: string }[];
  close(): Promise<void>;
}

/**
 * Opens `sockets` graphql-ws connections (authenticated by connection params, as test/kit/ws.ts
 * does), `concurrency` handshakes at a time, and subscribes `perSocket` times to the conversation
 * over each. Subscriptions are not acknowledged by graphql-ws: the caller proves them live with a
 * run that every subscriber must see.
 */
export async function openAudience(
  wsUrl: string,
  key: string,
  conversation: string,
  layout: { sockets: number; perSocket: number; concurrency: number },
): Promise<Audience> {
  const clients: Client[] = [];
  const connectMs: number[] = [];
  const closedAfterConnect: { at: number; what: string }[] = [];
  const subscribers: Subscriber[] = [];
  const connect = (index: number) =>
    new Promise<Client>((resolve, reject) => {
      const started = now();
      let connected = false;
      const client: Client = createClient({
        url: wsUrl,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${key}` },
        lazy: false,
        retryAttempts: 0,
        onNonLazyError: (error) => {
          if (!connected) reject(new Error(`socket ${index}: ${describe(error)}`));
        },
        on: {
          connected: () => {
            connected = true;
            connectMs.push(now() - started);
            resolve(client);
          },
          closed: (event) => {
            const { code, reason } = event as { code?: number; reason?: string };
            if (connected) closedAfterConnect.push({ at: now(), what: `socket ${index}: ${code} ${reason ?? ''}`.trim() });
            else reject(new Error(`socket ${index} closed before its acknowledgement: ${code} ${reason ?? ''}`));
          },
        },
      });
    });
  let next = 0;
  const opener = async () => {
    while (next < layout.sockets) {
      const index = next++;
      clients[index] = await connect(index);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(layout.concurrency, layout.sockets) }, opener));
  } catch (error) {
    await Promise.allSettled(clients.filter(Boolean).map((client) => client.dispose()));
    throw error;
  }
  clients.forEach((client, socket) => {
    for (let index = 0; index < layout.perSocket; index++) subscribers.push(subscribe(client, socket, conversation));
  });
  return {
    clients,
    subscribers,
    connectMs,
    closedAfterConnect,
    close: async () => {
      await Promise.allSettled(clients.map((client) => client.dispose()));
    },
  };
}

function subscribe(client: Client, socket: number, conversation: string): Subscriber {
  const subscriber: Subscriber = { socket, events: [], problems: [] };
  client.subscribe<{ conversation_stream: { sequence: number; kind: string; delta: string | null } }>(
    { query: FOLLOW, variables: { c: conversation } },
    {
      next: (result) => {
        const at = now();
        const event = result.data?.conversation_stream;
        if (!event) subscriber.problems.push(`result without data: ${JSON.stringify(result.errors ?? result).slice(0, 300)}`);
        else subscriber.events.push({ sequence: event.sequence, kind: event.kind, delta: event.delta, at });
      },
      error: (error) => subscriber.problems.push(`error: ${describe(error)}`),
      complete: () => subscriber.problems.push('completed'),
    },
  );
  return subscriber;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (Array.isArray(error)) return JSON.stringify(error).slice(0, 300);
  const event = error as { code?: number; reason?: string; type?: string; message?: string };
  if (event && typeof event === 'object' && ('code' in event || 'type' in event)) return `${event.type ?? 'event'} ${event.code ?? ''} ${event.reason ?? event.message ?? ''}`.trim();
  return String(error);
}

/**
 * One more subscription, on a socket of its own, that notes each event's run: the measured run's
 * id, to read its log back afterwards. It is not counted among the subscribers.
 */
export async function openAuditor(wsUrl: string, key: string, conversation: string): Promise<{ runAfter(sequence: number): string | undefined; close(): Promise<void> }> {
  const client = await connectOnce(wsUrl, key);
  const runs: { sequence: number; run_id: string }[] = [];
  client.subscribe<{ conversation_stream: { sequence: number; run_id: string } }>(
    { query: 'subscription($c: ID!) { conversation_stream(conversation: $c) { sequence run_id } }', variables: { c: conversation } },
    { next: (result) => void (result.data && runs.push(result.data.conversation_stream)), error: () => undefined, complete: () => undefined },
  );
  return {
    runAfter: (sequence) => runs.find((event) => event.sequence > sequence)?.run_id,
    close: () => client.dispose() as Promise<void>,
  };
}

/**
 * The whole log of a run, as `conversation_stream(conversation, run)` replays it to a late
 * subscriber (and ends after its last event): what every subscriber should have received.
 */
export async function replayRun(wsUrl: string, key: string, conversation: string, run: string, ms = 15_000): Promise<Omit<Received, 'at'>[] | null> {
  const client = await connectOnce(wsUrl, key);
  const events: Omit<Received, 'at'>[] = [];
  try {
    const ended = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      client.subscribe<{ conversation_stream: Omit<Received, 'at'> }>(
        { query: 'subscription($c: ID!, $r: ID) { conversation_stream(conversation: $c, run: $r) { sequence kind delta } }', variables: { c: conversation, r: run } },
        {
          next: (result) => void (result.data && events.push(result.data.conversation_stream)),
          error: () => {
            clearTimeout(timer);
            resolve(false);
          },
          complete: () => {
            clearTimeout(timer);
            resolve(true);
          },
        },
      );
    });
    return ended ? events : null;
  } finally {
    await client.dispose();
  }
}

function connectOnce(wsUrl: string, key: string): Promise<Client> {
  return new Promise<Client>((resolve, reject) => {
    const client: Client = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${key}` },
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: (error) => reject(new Error(describe(error))),
      on: { connected: () => resolve(client) },
    });
  });
}

/** The highest sequence any subscriber has seen (0 before any). */
export function lastSequence(subscribers: Subscriber[]): number {
  let last = 0;
  for (const subscriber of subscribers) for (const event of subscriber.events) last = Math.max(last, event.sequence);
  return last;
}

/**
 * Whether the subscriber has seen a run end after `after` (a status past the run's first one,
 * `ack`), or will see nothing more (its subscription failed or ended).
 */
export function sawRunEnd(subscriber: Subscriber, after: number): boolean {
  if (subscriber.problems.length > 0) return true;
  let statuses = 0;
  for (const event of subscriber.events) if (event.sequence > after && event.kind === 'status') statuses++;
  return statuses >= 2;
}

/** Polls `done` every 20 ms until it holds or `ms` passed; answers whether it held. */
export async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = now() + ms;
  while (!done()) {
    if (now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

export interface Spread {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

function spread(values: number[]): Spread {
  const { p50, p99 } = percentiles(values);
  let max = Number.NaN;
  for (const value of values) if (!(value <= max)) max = value;
  return { p50, p99, max, count: values.length };
}

/** What the measured run delivered, and how late. */
export interface FanOutFigures {
  subscribers: number;
  /** Whether the run's log was read back (else what was published is what any subscriber saw). */
  fromLog: boolean;
  /** Events of the run (its sequences after the warm-up). */
  runEvents: number;
  /** The run's message_chunk events, and how many model chunks (words) they carried. */
  chunkEvents: number;
  modelChunks: number;
  /** Chunk events that carried more than one model chunk (merged while the writer was behind). */
  mergedChunkEvents: number;
  delivered: number;
  expected: number;
  wordsDelivered: number;
  wordsExpected: number;
  /** Over each subscriber's whole subscription (warm-up included), by sequence. */
  missingEvents: number;
  gaps: number;
  duplicates: number;
  outOfOrder: number;
  /** Words of the answer missing or repeated, over all subscribers. */
  missingWords: number;
  duplicateWords: number;
  subscribersIncomplete: number;
  problems: string[];
  /** Delivery at each subscriber − when the model wrote the chunk, per subscriber and word. */
  endToEnd: Spread;
  /** Delivery at each subscriber − the first subscriber's delivery of the same chunk event. */
  fanOut: Spread;
  /** The earliest delivery of the answer's first word − when the model wrote it. */
  firstWordMs: number;
}

/**
 * The figures of the run whose events follow sequence `warmupEnd`, whose words the model wrote at
 * `written` (token → time); `answer` is the model's number for that answer.
 */
export function analyse(
  subscribers: Subscriber[],
  warmupEnd: number,
  written: Map<string, number>,
  answer: number,
  log: Omit<Received, 'at'>[] | null,
): FanOutFigures {
  const runSequences = new Set<number>();
  const chunkSequences = new Map<number, number>();
  const firstArrival = new Map<number, number>();
  // What was published: the run's log when it could be read back, else what any subscriber saw.
  const published = log ?? subscribers.flatMap((subscriber) => subscriber.events);
  for (const event of published) {
    if (event.sequence <= warmupEnd) continue;
    runSequences.add(event.sequence);
    if (event.kind === 'message_chunk') chunkSequences.set(event.sequence, tokensOf(event.delta).length);
  }
  for (const subscriber of subscribers) {
    for (const event of subscriber.events) {
      if (event.sequence <= warmupEnd || event.kind !== 'message_chunk') continue;
      const first = firstArrival.get(event.sequence);
      if (first === undefined || event.at < first) firstArrival.set(event.sequence, event.at);
    }
  }
  const endSequence = Math.max(warmupEnd, ...runSequences);
  const perSubscriberExpected = endSequence - warmupEnd;
  const expectedTokens = [...written.keys()].filter((token) => answerOf(token) === answer);
  const endToEnd: number[] = [];
  const fanOut: number[] = [];
  const problems: string[] = [];
  const figures = {
    delivered: 0,
    wordsDelivered: 0,
    missingEvents: 0,
    gaps: 0,
    duplicates: 0,
    outOfOrder: 0,
    missingWords: 0,
    duplicateWords: 0,
    subscribersIncomplete: 0,
  };
  let firstWordMs = Number.POSITIVE_INFINITY;
  subscribers.forEach((subscriber, index) => {
    for (const problem of subscriber.problems) if (problems.length < 5) problems.push(`subscriber ${index} (socket ${subscriber.socket}): ${problem}`);
    // Sequences over the whole subscription: consecutive from the first one received.
    let previous: number | null = null;
    let highest = Number.NEGATIVE_INFINITY;
    const seen = new Set<number>();
    for (const event of subscriber.events) {
      if (seen.has(event.sequence)) figures.duplicates++;
      else if (event.sequence < highest) figures.outOfOrder++;
      else if (previous !== null && event.sequence > previous + 1) {
        figures.gaps++;
        figures.missingEvents += event.sequence - previous - 1;
      }
      seen.add(event.sequence);
      previous = event.sequence;
      highest = Math.max(highest, event.sequence);
    }
    // A subscriber that stopped before the run's end missed its last events.
    if (previous !== null && previous < endSequence) figures.missingEvents += endSequence - Math.max(previous, warmupEnd);
    let delivered = 0;
    for (const sequence of seen) if (runSequences.has(sequence)) delivered++;
    figures.delivered += delivered;
    if (delivered < perSubscriberExpected) figures.subscribersIncomplete++;
    // Words of the answer, in order, each timed against the chunk the model wrote it in.
    const words = new Map<string, number>();
    for (const event of subscriber.events) {
      if (event.sequence <= warmupEnd || event.kind !== 'message_chunk') continue;
      const first = firstArrival.get(event.sequence)!;
      fanOut.push(event.at - first);
      for (const token of tokensOf(event.delta)) {
        words.set(token, (words.get(token) ?? 0) + 1);
        const wrote = written.get(token);
        if (wrote === undefined) continue;
        endToEnd.push(event.at - wrote);
        if (token === expectedTokens[0]) firstWordMs = Math.min(firstWordMs, event.at - wrote);
      }
    }
    for (const token of expectedTokens) {
      const times = words.get(token) ?? 0;
      if (times === 0) figures.missingWords++;
      if (times > 1) figures.duplicateWords += times - 1;
    }
    figures.wordsDelivered += [...words.entries()].filter(([token]) => written.has(token)).reduce((sum, [, times]) => sum + times, 0);
  });
  const modelChunks = [...chunkSequences.values()].reduce((sum, words) => sum + words, 0);
  return {
    subscribers: subscribers.length,
    fromLog: log !== null,
    runEvents: runSequences.size,
    chunkEvents: chunkSequences.size,
    modelChunks,
    mergedChunkEvents: [...chunkSequences.values()].filter((words) => words > 1).length,
    expected: perSubscriberExpected * subscribers.length,
    wordsExpected: expectedTokens.length * subscribers.length,
    ...figures,
    problems,
    endToEnd: spread(endToEnd),
    fanOut: spread(fanOut),
    firstWordMs,
  };
}

/** The model's words in a delta (`s3w17 s3w18 `). */
export function tokensOf(delta: string | null): string[] {
  return (delta ?? '').split(/\s+/).filter(Boolean);
}
