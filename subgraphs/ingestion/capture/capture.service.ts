import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { PROFILES_QUEUED_TOPIC } from '../profiles/profile.queue.js';
import { readBatch, type BatchInput } from './batch.rules.js';
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
 * Takes a batch of events for the environment its project API key names: the key, then every
 * event, are checked first; then everything is written in one transaction, and the answer comes
 * only after the commit. Nothing of a rejected batch is stored. Persons and groups change right
 * after, in the profile worker.
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
    if (!Array.isArray(input.batch)) throw new ValidationError('Expected a list of items.', 'batch', 'not_a_list');
    const token = batchToken(input.api_key, input.batch);
    const target = await projectsFacade.findIngestionTarget(this.em, token);
    if (!target) throw unknownKey();
    const started = Date.now();
    const received = input.batch.length;
    const historical = input.historical_migration === true;
    const documents = input.documents ?? { json: JSON.stringify(input.batch), path: 'array' };
    // From here on only the events as read are kept: the parsed request can go before the writes.
    const { kept, dropped } = applyRestrictions(readBatch(input, target.environment_id, started), target.restrictions);
    const { stored, queuedProfiles } = kept.length > 0 ? await writeBatch(this.em, target, kept, documents, this.log) : { stored: 0, queuedProfiles: false };
    if (queuedProfiles) await this.pubsub.publish(PROFILES_QUEUED_TOPIC, { environment_id: target.environment_id });
    const outcome: BatchOutcome = { status: 'Ok', received, stored, duplicates: received - dropped - stored, dropped };
    this.log.debug({ environment_id: target.environment_id, ...outcome, historical, ms: Date.now() - started }, 'batch ingested');
    return outcome;
  }
}
