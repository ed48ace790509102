import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { PROFILES_QUEUED_TOPIC } from '../profiles/profile.queue.js';
import { identify, readBatch, type BatchInput, type EventDocuments } from './batch.rules.js';
import type { CapturedEvent } from './captured-event.js';
import { batchToken } from './batch-token.js';
import { writeBatch } from './batch.writer.js';
import { unknownKey } from './capture.errors.js';
import { applyRestrictions } from './restrictions.js';
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
 * Takes a batch of events for the environment its project API key names: the key's shape and
 * every event are checked first, then the key is looked up; then everything is written in one
 * transaction, and the answer comes only after the commit. Nothing of a rejected batch is stored.
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
    return this.write(read(readPayload(payload)));
  }

  ingest(input: BatchInput): Promise<BatchOutcome> {
    return this.write(read(input));
  }

  private async write(batch: ReadBatch): Promise<BatchOutcome> {
    const target = await projectsFacade.findIngestionTarget(this.em, batch.token);
    if (!target) throw unknownKey();
    const { kept, dropped } = applyRestrictions(identify(batch.events, target.environment_id), target.restrictions);
    const { stored, queuedProfiles } = kept.length > 0 ? await writeBatch(this.em, target, kept, batch.documents, this.log) : { stored: 0, queuedProfiles: false };
    if (queuedProfiles) await this.pubsub.publish(PROFILES_QUEUED_TOPIC, { environment_id: target.environment_id });
    const { received } = batch;
    const outcome: BatchOutcome = { status: 'Ok', received, stored, duplicates: received - dropped - stored, dropped };
    this.log.debug({ environment_id: target.environment_id, ...outcome, historical: batch.historical, ms: Date.now() - batch.started }, 'batch ingested');
    return outcome;
  }
}

/** What writing a batch needs of it once read: the parsed request is not kept past this. */
interface ReadBatch {
  token: string;
  events: CapturedEvent[];
  documents: EventDocuments;
  received: number;
  historical: boolean;
  started: number;
}

/**
 * The key's shape and every event, checked before anything is awaited, so that the parsed request
 * dies young (a batch's objects would otherwise outlive a database round trip or two).
 */
function read(input: BatchInput): ReadBatch {
  if (!Array.isArray(input.batch)) throw new ValidationError('Expected a list of items.', 'batch', 'not_a_list');
  const started = Date.now();
  return {
    token: batchToken(input.api_key, input.batch),
    events: readBatch(input, started),
    documents: input.documents ?? { json: JSON.stringify(input.batch), path: 'array' },
    received: input.batch.length,
    historical: input.historical_migration === true,
    started,
  };
}
