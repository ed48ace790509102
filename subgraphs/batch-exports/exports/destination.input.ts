import { ValidationError } from '../../shared/errors.js';
import { isObject, type JsonObject } from '../../shared/validation.js';
import { checkTargets } from '../destinations/destination-address.js';
import { checkConfig, splitSecrets, withDefaults } from '../destinations/destination-config.js';
import type { Destination } from '../destinations/destination.js';
import { requireDestination } from '../destinations/destinations.js';
import { openSecrets, sealSecrets } from './destination-secrets.js';

/** A destination as a request gives it, checked (and, on update, merged into the stored one). */
export interface DestinationInput {
  destination: Destination;
  /** The whole config: stored fields, then the request's. */
  config: JsonObject;
  /** What the record shows, and the secrets sealed apart. */
  open: JsonObject;
  sealed: string | null;
}

/**
 * Stored credentials never follow a destination to a new address, nor onto a weaker connection: a
 * PATCH that moves it (another host, URL or endpoint) or changes how it connects (TLS, certificate
 * checks) must send the secret fields again.
 */
function requireSecretsForNewTarget(destination: Destination, given: JsonObject, stored: StoredDestination): void {
  const before = withDefaults(destination.fields, stored.destination_config);
  const moved = destination.targetFields.filter((name) => given[name] !== undefined && given[name] !== before[name]);
  if (moved.length === 0) return;
  const secrets = destination.fields.filter((field) => field.secret).map((field) => field.name);
  const missing = secrets.filter((name) => given[name] === undefined || given[name] === null);
  if (missing.length > 0) {
    throw new ValidationError(`Changing ${moved.join(', ')} needs the secret fields sent again (${missing.join(', ')}): stored credentials are not sent to a new address or over another kind of connection.`, 'destination');
  }
}

export interface StoredDestination {
  destination_type: string;
  destination_config: JsonObject;
  destination_secrets: string | null;
}

/**
 * Reads `{type, config}`: a known type, a config of its fields (secret ones sealed). On update the
 * type may not change (PostHog's rule) and the given fields are merged into the stored config.
 */
export function readDestination(input: unknown, stored: StoredDestination | null): DestinationInput {
  if (!isObject(input)) throw new ValidationError('The destination must be an object with `type` and `config`.', 'destination');
  const type = input.type ?? stored?.destination_type;
  if (type === undefined || type === null) throw new ValidationError('This field is required.', 'destination__type', 'required');
  if (stored && type !== stored.destination_type) {
    throw new ValidationError(`Cannot change destination type from '${stored.destination_type}' to '${String(type)}'. Delete this batch export and create a new one with the new destination type.`, 'destination__type');
  }
  const destination = requireDestination(type);
  const given = checkConfig(destination.fields, input.config ?? {}, stored !== null);
  if (stored) requireSecretsForNewTarget(destination, given, stored);
  const config = stored ? { ...stored.destination_config, ...openSecrets(stored.destination_secrets), ...given } : given;
  for (const [name, value] of Object.entries(config)) if (value === null) delete config[name];
  // A PATCH that emptied a required field leaves a config a run could not use.
  if (stored) checkConfig(destination.fields, config, false);
  const filled = withDefaults(destination.fields, config);
  destination.check(filled);
  checkTargets(destination.targets(filled));
  const { open, secrets } = splitSecrets(destination.fields, config);
  // Unchanged secrets keep their sealed form: a PATCH of other fields rewrites no secret.
  const unchanged = stored !== null && JSON.stringify(secrets) === JSON.stringify(openSecrets(stored.destination_secrets));
  return { destination, config, open, sealed: unchanged ? stored.destination_secrets : sealSecrets(secrets) };
}
