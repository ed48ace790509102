import { ValidationError } from '../../shared/errors.js';
import { isObject, isUuid, jsonProblem, jsonSize, present } from '../../shared/validation.js';
import { AGENT_MODES, type AgentMode } from './conversation.entity.js';

/** PostHog's limits: a message to the assistant, and one a client appends. */
export const MAX_MESSAGE_LENGTH = 40_000;
export const MAX_APPENDED_LENGTH = 10_000;
/** Context objects a client sends along (ui_context, billing_context, …), in bytes of JSON. */
export const MAX_CONTEXT_BYTES = 64 * 1024;
const MAX_SESSION_ID_LENGTH = 200;

/** A message's text: required where `required`, never blank, at most `max` characters (code points). */
export function messageText(value: string | null | undefined, max: number, attr = 'content'): string {
  const text = present(value, attr);
  if (!text.trim()) throw new ValidationError('This field may not be blank.', attr, 'blank');
  if ([...text].length > max) throw new ValidationError(`Ensure this field has no more than ${max} characters.`, attr, 'max_length');
  storable(text, attr);
  return text;
}

/** `content` of POST …/conversations/: optional there (its absence re-attaches), else as any message. */
export function optionalMessageText(value: string | null | undefined): string | null {
  return value == null ? null : messageText(value, MAX_MESSAGE_LENGTH);
}

export function optionalUuid(value: string | null | undefined, attr: string): string | null {
  if (value == null) return null;
  if (!isUuid(value)) throw new ValidationError('Must be a valid UUID.', attr);
  return value.toLowerCase();
}

export function agentMode(value: string | null | undefined): AgentMode | null {
  if (value == null) return null;
  if (!(AGENT_MODES as readonly string[]).includes(value)) throw new ValidationError(`"${value}" is not a valid choice.`, 'agent_mode', 'invalid_choice');
  return value as AgentMode;
}

export function sessionId(value: string | null | undefined): string | null {
  if (value == null) return null;
  if ([...value].length > MAX_SESSION_ID_LENGTH) {
    throw new ValidationError(`Ensure this field has no more than ${MAX_SESSION_ID_LENGTH} characters.`, 'session_id', 'max_length');
  }
  storable(value, 'session_id');
  return value;
}

/** Free JSON a client sends along (kept and echoed): storable and bounded; `object` asks for a JSON object. */
export function context(value: unknown, attr: string, object = false): unknown {
  if (value == null) return null;
  if (object && !isObject(value)) {
    throw new ValidationError(`Expected a dictionary of items but got type "${Array.isArray(value) ? 'list' : typeof value}".`, attr, 'not_a_dict');
  }
  storable(value, attr);
  if (jsonSize(value) > MAX_CONTEXT_BYTES) throw new ValidationError(`Ensure this field is no larger than ${MAX_CONTEXT_BYTES} bytes of JSON.`, attr, 'max_length');
  return value;
}

/** PostgreSQL stores no NUL character or lone surrogate, and nothing nested past the platform's depth. */
function storable(value: unknown, attr: string): void {
  const problem = jsonProblem(value);
  if (problem === 'too_deep') throw new ValidationError('Ensure this field is not nested so deeply.', attr, 'max_depth');
  if (problem) throw new ValidationError('Null characters and unpaired surrogates are not allowed.', attr, 'null_characters_not_allowed');
}

/** A title from the first message, until the assistant writes one: its first line, at most 80 characters. */
export function provisionalTitle(content: string): string {
  const line = content.trim().split('\n')[0]!.trim();
  const chars = [...line];
  return chars.length > 80 ? `${chars.slice(0, 79).join('')}…` : line;
}

/** What a client sends along with a message (POST …/conversations/ and the queue), checked. */
export interface MessageContext {
  contextual_tools: unknown;
  ui_context: unknown;
  billing_context: unknown;
  agent_mode: AgentMode | null;
  session_id: string | null;
}

export function messageContext(args: { contextual_tools?: unknown; ui_context?: unknown; billing_context?: unknown; agent_mode?: string | null; session_id?: string | null }): MessageContext {
  return {
    contextual_tools: context(args.contextual_tools, 'contextual_tools', true),
    ui_context: context(args.ui_context, 'ui_context'),
    billing_context: context(args.billing_context, 'billing_context'),
    agent_mode: agentMode(args.agent_mode),
    session_id: sessionId(args.session_id),
  };
}
