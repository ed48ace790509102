import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { readBatch, type BatchInput } from './batch.rules.js';
import { batchToken } from './batch-token.js';
import { writeBatch } from './batch.writer.js';
import { unknownKey } from './capture.errors.js';
import { applyRestrictions } from './restrictions.js';

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
 * only after the commit. Nothing of a rejected batch is stored.
 */
export class CaptureService {
  constructor(
    private readonly em: EntityManager,
    private readonly log: Logger,
  ) {}

  async ingest(input: BatchInput): Promise<BatchOutcome> {
    if (!Array.isArray(input.batch)) throw new ValidationError('Expected a list of items.', 'batch', 'not_a_list');
    const token = batchToken(input.api_key, input.batch);
    const target = await projectsFacade.findIngestionTarget(this.em, token);
    if (!target) throw unknownKey();
    const started = Date.now();
    const events = readBatch(input, target.environment_id, started);
    const { kept, dropped } = applyRestrictions(events, target.restrictions);
    const stored = kept.length > 0 ? await writeBatch(this.em, target, kept, this.log) : 0;
    const outcome: BatchOutcome = { status: 'Ok', received: input.batch.length, stored, duplicates: input.batch.length - dropped - stored, dropped };
    this.log.debug({ environment_id: target.environment_id, ...outcome, historical: input.historical_migration === true, ms: Date.now() - started }, 'batch ingested');
    return outcome;
  }
}
