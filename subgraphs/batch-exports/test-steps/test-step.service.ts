import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { AppError, NotFoundError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { isObject } from '../../shared/validation.js';
import { AddressRefusedError } from '../destinations/destination-address.js';
import { checkConfig, redactSecrets, withDefaults } from '../destinations/destination-config.js';
import { DestinationError, type Destination } from '../destinations/destination.js';
import { destinationOf } from '../destinations/destinations.js';
import { environmentOf, findExport } from '../exports/batch-export.access.js';
import { readDestination } from '../exports/destination.input.js';
import type { RunTestStepArgs, RunTestStepNewArgs, TestArgs } from './test-step.inputs.js';
import type { TestRecord, TestStepRecord } from './test-step.record.js';

/** How long one step may take. */
const STEP_TIMEOUT_MS = 20_000;

/** PostHog's destination tests (INTERNAL): the checks of a destination, and running one of them. */
export class TestStepService {
  constructor(
    private readonly em: EntityManager,
    private readonly log: Logger,
  ) {}

  async steps(actor: Actor, args: TestArgs): Promise<TestRecord> {
    await environmentOf(this.em, actor, args.project_id);
    if (!args.destination) throw new ValidationError('This field is required.', 'destination', 'required');
    const destination = destinationOf(args.destination);
    if (!destination) throw new NotFoundError(`No test steps for destination '${args.destination}'.`);
    return { steps: destination.testSteps.map(({ name, description }) => ({ name, description, result: null })) };
  }

  /** Runs a step on the config a create request would carry. */
  async runNew(actor: Actor, args: RunTestStepNewArgs): Promise<TestStepRecord> {
    await environmentOf(this.em, actor, args.project_id);
    return this.run(args.destination, null, args.step);
  }

  /** Runs a step on a stored export's config, with the request's fields over it (secrets need not be sent again). */
  async runStored(actor: Actor, args: RunTestStepArgs): Promise<TestStepRecord> {
    const item = await findExport(this.em, actor, args.project_id, args.id);
    return this.run(args.destination ?? {}, item, args.step);
  }

  private async run(input: unknown, stored: Parameters<typeof readDestination>[1], stepIndex: number | null | undefined): Promise<TestStepRecord> {
    const destination = this.destinationOf(input, stored);
    const index = stepIndex ?? 0;
    const step = destination.testSteps[index];
    if (!step) throw new ValidationError(`Invalid step: ${index}. The destination has ${destination.testSteps.length} steps.`, 'step');
    const base = { name: step.name, description: step.description };
    let config;
    try {
      config = readDestination(input ?? {}, stored).config;
      checkConfig(destination.fields, config, false);
    } catch (error) {
      // A host the platform will not reach is named as such: the step would connect nowhere.
      if (error instanceof AddressRefusedError) return { ...base, result: { status: 'Failed', message: error.message } };
      if (error instanceof AppError) return { ...base, result: { status: 'Failed', message: "The test step cannot run as it's not configured." } };
      throw error;
    }
    const redact = (message: string) => redactSecrets(message, destination.fields, config);
    try {
      await step.run(withDefaults(destination.fields, config), AbortSignal.timeout(STEP_TIMEOUT_MS));
      return { ...base, result: { status: 'Passed', message: null } };
    } catch (error) {
      if (error instanceof DestinationError) return { ...base, result: { status: 'Failed', message: redact(error.message) } };
      this.log.warn({ step: step.name, err: redact((error as Error).message) }, 'batch export test step failed unexpectedly');
      return { ...base, result: { status: 'Failed', message: redact(`The test step failed with an unknown error: ${(error as Error).message}.`) } };
    }
  }

  private destinationOf(input: unknown, stored: Parameters<typeof readDestination>[1]): Destination {
    const type = isObject(input) && typeof input.type === 'string' ? input.type : stored?.destination_type;
    if (!type) throw new ValidationError('This field is required.', 'destination', 'required');
    const destination = destinationOf(type);
    if (!destination) throw new ValidationError(`"${type}" is not a valid choice.`, 'destination__type', 'invalid_choice');
    return destination;
  }
}
