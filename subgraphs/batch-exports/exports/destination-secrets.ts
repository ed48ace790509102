import { secretBox } from '../../shared/secrets.js';
import type { JsonObject } from '../../shared/validation.js';

/** The secret fields of a config, sealed as one JSON object (null when there are none). */
export function sealSecrets(secrets: JsonObject): string | null {
  return Object.keys(secrets).length === 0 ? null : secretBox().seal(JSON.stringify(secrets));
}

export function openSecrets(sealed: string | null): JsonObject {
  return sealed ? (JSON.parse(secretBox().open(sealed)) as JsonObject) : {};
}
