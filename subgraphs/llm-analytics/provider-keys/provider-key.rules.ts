import { ValidationError } from '../../shared/errors.js';
import { canonicalProvider, PROVIDER_PROFILES, PROVIDERS, type Provider } from '../providers/provider.catalog.js';

const MAX_NAME_LENGTH = 255;
const MAX_KEY_LENGTH = 1000;

/** A provider name as sent (any case; `google` for `gemini`), or 400 on `attr`. */
export function validProvider(name: string | null | undefined, attr = 'provider'): Provider {
  const provider = name == null ? undefined : canonicalProvider(name);
  if (!provider) throw new ValidationError(`Invalid provider. Must be one of: ${PROVIDERS.join(', ')}`, attr, 'invalid_choice');
  return provider;
}

export function validName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationError('This field may not be blank.', 'name', 'blank');
  if (trimmed.length > MAX_NAME_LENGTH) throw new ValidationError(`Ensure this field has no more than ${MAX_NAME_LENGTH} characters.`, 'name', 'max_length');
  return trimmed;
}

/** The key's shape, before the provider is asked: present, one token, and the provider's prefix. */
export function validApiKey(provider: Provider, apiKey: string | null | undefined, required = 'API key is required when creating a new provider key.'): string {
  const key = apiKey?.trim();
  if (!key) throw new ValidationError(required, 'api_key', 'required');
  // Printable ASCII only: it goes into an HTTP header, where anything else cannot travel.
  if (key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) throw new ValidationError('This API key is not in a valid format.', 'api_key');
  const pattern = PROVIDER_PROFILES[provider].keyPattern;
  if (pattern && !key.startsWith(pattern.prefix)) {
    throw new ValidationError(`Invalid ${PROVIDER_PROFILES[provider].label} API key format: it should start with ${pattern.prefix}`, 'api_key');
  }
  return key;
}
