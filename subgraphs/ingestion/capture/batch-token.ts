import { ProjectKeyError, missingKey } from './capture.errors.js';

const MAX_TOKEN_LENGTH = 64;

/**
 * The project API key of a batch, by PostHog's capture rules: the envelope's, else the one its
 * events carry (`api_key`, `token`, `$token` or `properties.token`), which must then agree. Its
 * shape is checked here; whether it names a project is the lookup's business.
 */
export function batchToken(envelope: string | null | undefined, events: readonly unknown[]): string {
  const token = envelope?.trim() || eventToken(events);
  if (!token) throw missingKey();
  const problem = shapeProblem(token);
  if (problem) throw new ProjectKeyError('invalid_api_key', `Provided API key is not valid: ${problem}.`);
  return token;
}

function eventToken(events: readonly unknown[]): string | undefined {
  let found: string | undefined;
  for (const event of events) {
    if (event === null || typeof event !== 'object') continue;
    const { api_key, token, $token, properties } = event as Record<string, unknown>;
    const candidate = [api_key, token, $token, (properties as Record<string, unknown> | null)?.token].find(
      (value) => typeof value === 'string' && value.trim() !== '',
    ) as string | undefined;
    if (candidate === undefined) continue;
    if (found !== undefined && candidate.trim() !== found) {
      throw new ProjectKeyError('inconsistent_api_key', 'The events of the batch carry different API keys.');
    }
    found = candidate.trim();
  }
  return found;
}

function shapeProblem(token: string): string | null {
  if (token.length > MAX_TOKEN_LENGTH) return 'too_long';
  if (!/^[\x20-\x7e]+$/.test(token)) return 'not_ascii';
  if (token.startsWith('phx_')) return 'personal_api_key';
  return null;
}
