import type { EntityManager } from '@mikro-orm/postgresql';
import { generateText } from 'ai';
import type { Actor } from '../../shared/auth/actor.js';
import { UpstreamError, ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { present } from '../../shared/validation.js';
import { projectsFacade } from '../../projects/facade.js';
import { markKeyUsed } from '../provider-keys/active-keys.query.js';
import { languageModel, modelTimeoutMs } from '../providers/provider.api.js';
import { PROVIDER_PROFILES } from '../providers/provider.catalog.js';
import { failureKind, loggableFailure, providerMessage } from '../providers/provider.errors.js';
import { renderTextRepr, TextReprInputError } from '../text-repr/text-repr.js';
import { fixLineReferences, summaryTitle } from './line-references.js';
import { chooseModel, modelName, type ModelChoice } from './model-choice.js';
import { systemPrompt, userPrompt, type SummaryMode } from './summarization.prompts.js';
import type { BatchCheckArgs, BatchCheckResult, SummarizationResult, SummarizeArgs } from './summarization.types.js';
import { SummaryCache } from './summary.cache.js';

const MAX_BATCH = 100;
/** The text form the model reads: every line numbered, nothing truncated or marked up. */
const TEXT_OPTIONS = { include_line_numbers: true, truncated: false, include_markers: false, collapsed: false };

export class SummarizationService {
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub: PubSub,
    private readonly log: Logger,
  ) {}

  /** A summary of a trace or event, from the cache (for an hour) unless `force_refresh`. */
  async summarize(actor: Actor, args: SummarizeArgs): Promise<SummarizationResult> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const kind = summarizeType(args.summarize_type);
    const mode = summaryMode(args.mode);
    const { id, render } = summaryTarget(kind, args.data);
    const choice = await chooseModel(this.em, environment.id, args.model);
    const cache = new SummaryCache(this.em, this.pubsub, this.log);
    const key = cacheKey(environment.id, kind, id, mode, choice.model);
    if (!args.force_refresh) {
      const hit = await cache.get<SummarizationResult>(key);
      if (hit) return hit.body;
    }
    const text = render();
    const summary = fixLineReferences(await this.write(choice, mode, kind, text), lineCount(text));
    const result = { summary, text_repr: text, metadata: { text_repr_length: text.length, model: choice.model, provider: choice.provider, summarize_type: kind } };
    await cache.set(key, { title: summaryTitle(summary, kind === 'trace' ? 'Untitled trace' : 'Untitled event'), body: result });
    return result;
  }

  /** Of the given traces, those with a cached summary for this mode and model, with their titles. */
  async batchCheck(actor: Actor, args: BatchCheckArgs): Promise<BatchCheckResult> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const ids = traceIds(args.trace_ids);
    const mode = summaryMode(args.mode);
    // Only the model's name is needed: no key is opened, and with none configured nothing is cached.
    const model = await modelName(this.em, environment.id, args.model);
    if (!model) return { summaries: [] };
    const keys = ids.map((id) => cacheKey(environment.id, 'trace', id, mode, model));
    const cached = await new SummaryCache(this.em, this.pubsub, this.log).getMany(keys);
    return { summaries: ids.flatMap((trace_id, index) => (cached[index] ? [{ trace_id, title: cached[index]!.title, cached: true }] : [])) };
  }

  private async write(choice: ModelChoice, mode: SummaryMode, kind: 'trace' | 'event', text: string): Promise<string> {
    const label = PROVIDER_PROFILES[choice.provider].label;
    try {
      const { text: summary } = await generateText({
        model: languageModel(choice.provider, choice.apiKey, choice.model),
        system: systemPrompt(mode, kind),
        prompt: userPrompt(text, kind),
        maxOutputTokens: 2000,
        // No retries: a failing provider answers the caller at once (502), who may try again.
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(modelTimeoutMs()),
      });
      if (choice.key_id) await markKeyUsed(this.em, choice.key_id);
      if (!summary.trim()) throw new UpstreamError(502, `${label} (${choice.model}) answered with an empty summary.`);
      return summary.trim();
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      const kindOfFailure = failureKind(error, choice.provider);
      this.log.warn({ failure: kindOfFailure, provider: choice.provider, model: choice.model, error: loggableFailure(error) }, 'summary model call failed');
      if (kindOfFailure === 'timeout') throw new UpstreamError(504, `${label} (${choice.model}) did not answer within ${modelTimeoutMs() / 1000} s.`);
      if (kindOfFailure === 'rejected') {
        // The provider refused the request itself: an unknown model, a trace too long for it.
        const why = providerMessage(error) ?? 'it refused the request';
        throw new ValidationError(`${label} did not accept the request for ${choice.model}: ${why}`, 'model', 'model_rejected');
      }
      const why = { auth: 'rejected the API key', rate_limit: 'is rate limiting this key', network: 'could not be reached', other: 'failed' }[kindOfFailure];
      throw new UpstreamError(502, `${label} (${choice.model}) ${why}; no summary was written.`);
    }
  }
}

function summarizeType(value: string | null | undefined): 'trace' | 'event' {
  const type = present(value, 'summarize_type');
  if (type !== 'trace' && type !== 'event') throw new ValidationError(`"${type}" is not a valid choice.`, 'summarize_type', 'invalid_choice');
  return type;
}

function summaryMode(value: string | null | undefined): SummaryMode {
  const mode = value ?? 'minimal';
  if (mode !== 'minimal' && mode !== 'detailed') throw new ValidationError(`"${mode}" is not a valid choice.`, 'mode', 'invalid_choice');
  return mode;
}

/**
 * The id a summary is cached under (PostHog's checks and messages), and how to make the
 * line-numbered text the model reads: only on a cache miss, as a trace can take milliseconds.
 */
function summaryTarget(kind: 'trace' | 'event', data: unknown): { id: string; render: () => string } {
  const given = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  if (!given) throw new ValidationError('This field is required and must be an object.', 'data', 'required');
  if (kind === 'trace') {
    if (!given.trace || !Array.isArray(given.hierarchy)) throw new ValidationError("Trace summarization requires 'trace' and 'hierarchy' fields", null);
    const id = traceIdOf(given.trace);
    if (!id) throw new ValidationError("Trace must have either '$ai_trace_id' or 'id'", null);
    requireIdLength(id);
    return { id, render: () => textOf('$ai_trace', { trace: given.trace, hierarchy: given.hierarchy }) };
  }
  if (!given.event || typeof given.event !== 'object') throw new ValidationError("Event summarization requires 'event' field", null);
  const id = idOf(given.event);
  if (!id) throw new ValidationError("Event must have an 'id' field", null);
  requireIdLength(id);
  const event = given.event as Record<string, unknown>;
  const type = typeof event.event === 'string' && event.event !== '$ai_trace' ? event.event : '$ai_generation';
  return { id, render: () => textOf(type, event) };
}

function textOf(eventType: string, data: unknown): string {
  try {
    return renderTextRepr(eventType, data, TEXT_OPTIONS).text;
  } catch (error) {
    if (error instanceof TextReprInputError) throw new ValidationError(error.message, error.attr ? `data__${error.attr}` : null, error.code);
    throw error;
  }
}

/** A trace's `properties.$ai_trace_id`, else its `id`. */
function traceIdOf(trace: unknown): string | null {
  const properties = trace && typeof trace === 'object' ? (trace as { properties?: unknown }).properties : undefined;
  const traceId = properties && typeof properties === 'object' ? (properties as Record<string, unknown>).$ai_trace_id : undefined;
  return typeof traceId === 'string' || typeof traceId === 'number' ? String(traceId) : idOf(trace);
}

function idOf(value: unknown): string | null {
  const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/** Ids are looked up again by batch_check, which takes ids of at most MAX_ID_LENGTH. */
const MAX_ID_LENGTH = 200;

function requireIdLength(id: string): void {
  if (id.length > MAX_ID_LENGTH) throw new ValidationError(`An id may have at most ${MAX_ID_LENGTH} characters.`, 'data', 'max_length');
}

function traceIds(value: string[] | null | undefined): string[] {
  const ids = present(value, 'trace_ids');
  if (ids.length > MAX_BATCH) throw new ValidationError(`Ensure this field has no more than ${MAX_BATCH} elements.`, 'trace_ids', 'max_length');
  const bad = ids.findIndex((id) => !id || id.length > MAX_ID_LENGTH);
  if (bad >= 0) throw new ValidationError(`Each trace id must be 1 to ${MAX_ID_LENGTH} characters.`, `trace_ids__${bad}`);
  return [...new Set(ids)];
}

function lineCount(text: string): number {
  let count = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/** PostHog's key shape: environment, type, id, mode and model, each escaped so that a `:` in an id or model cannot collide. */
function cacheKey(environmentId: number, kind: string, id: string, mode: string, model: string): string {
  return `llm_summary:${environmentId}:${[kind, id, mode, model].map(encodeURIComponent).join(':')}`;
}
