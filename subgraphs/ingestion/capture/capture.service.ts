import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade, type IngestionTarget } from '../../projects/facade.js';
import { config } from '../../shared/config.js';
import { ThrottledError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { ingestedEvents } from '../../shared/metrics.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { limitsOf, rateLimiter } from '../../shared/rate-limit.js';
import { PROFILES_QUEUED_TOPIC } from '../profiles/profile.queue.js';
import { identify, readBatch, type BatchInput } from './batch.rules.js';
import type { CapturedEvent } from './captured-event.js';
import { batchToken } from './batch-token.js';
import { writeBatch } from './batch.writer.js';
import { unknownKey } from './capture.errors.js';
import { applyRestrictions } from './restriction.rules.js';
import { readPayload } from './capture-payload.js';

/** How a batch went: every event received was stored, a duplicate of one stored before, or dropped by a restriction. */
export interface BatchOutcome {
  status: 'Ok';
  received: number;
  stored: number;
  duplicates: number;
  dropped: number;
}

/**
 * Takes a batch of events for the environment its project API key names: the key is checked and
 * looked up first (401 before anything else), then every event; then everything is written in one
 * transaction, and the answer comes only after the commit. Nothing of a refused batch is stored.
 * Persons and groups change right after, in the profile worker.
 */
export class CaptureService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
  ) {}

  /** A capture request's body, as `/batch/` receives it (JSON text). */
  ingestPayload(payload: string): Promise<BatchOutcome> {
    return this.ingest(readPayload(payload));
  }

  async ingest(input: BatchInput): Promise<BatchOutcome> {
    const started = Date.now();
    if (!Array.isArray(input.batch)) throw new ValidationError('Expected a list of items.', 'batch', 'not_a_list');
    const target = await projectsFacade.findIngestionTarget(this.em, batchToken(input.api_key, input.batch));
    if (!target) throw unknownKey();
    await throttleToken(target.environment_id);
    return this.write(target, read(input, target, started));
  }

  private async write(target: IngestionTarget, batch: ReadBatch): Promise<BatchOutcome> {
    const { events, dropped, received } = batch;
    const { stored, queuedProfiles } = events.length > 0 ? await writeBatch(this.em, target, events, this.log) : { stored: 0, queuedProfiles: false };
    if (queuedProfiles) await this.pubsub.publish(PROFILES_QUEUED_TOPIC, { environment_id: target.environment_id });
    // After the commit and on its own: the batch never locks its environment's row (a deletion
    // holds it while it waits for the batch), and a batch lost before this leaves it to the next.
    if (stored > 0 && !target.ingested_event) await projectsFacade.markIngested(this.em, target.environment_id);
    const outcome: BatchOutcome = { status: 'Ok', received, stored, duplicates: received - dropped - stored, dropped };
    for (const name of ['stored', 'duplicates', 'dropped'] as const) if (outcome[name] > 0) ingestedEvents.inc({ outcome: name }, outcome[name]);
    this.log.debug({ environment_id: target.environment_id, ...outcome, historical: batch.historical, ms: Date.now() - batch.started }, 'batch ingested');
    return outcome;
  }
}

/** What writing a batch needs of it once read: the parsed request is not kept past this. */
interface ReadBatch {
  /** The events to store, after the environment's restrictions. */
  events: CapturedEvent[];
  dropped: number;
  received: number;
  historical: boolean;
  started: number;
}

/**
 * Every event by the rules, with its id and the environment's restrictions applied, at once (no
 * await), so that from here on only what the rules kept is alive: the parsed request dies young.
 */
function read(input: BatchInput, target: IngestionTarget, started: number): ReadBatch {
  const { kept, dropped } = applyRestrictions(identify(readBatch(input, started), target.environment_id), target.restrictions);
  return {
    events: kept,
    dropped,
    received: input.batch.length,
    historical: input.historical_migration === true,
    started,
  };
}

/**
 * A project API key's rate of `/batch/` requests (RATE_LIMIT_PROJECT_TOKEN_PER_MINUTE and
 * _PER_HOUR), counted once the key is known: a 429 with the seconds to wait, before any event is
 * read.
 */
async function throttleToken(environmentId: number): Promise<void> {
  const settings = config();
  const limits = limitsOf(settings.RATE_LIMIT_PROJECT_TOKEN_PER_MINUTE, settings.RATE_LIMIT_PROJECT_TOKEN_PER_HOUR);
  if (limits.length === 0) return;
  const verdict = await (await rateLimiter(settings)).take(`project-token:${environmentId}`, limits);
  if (!verdict.allowed) throw new ThrottledError(verdict.retryAfterSeconds);
}
