import { ValidationError } from '../../shared/errors.js';
import { checkOutboundHost, OutboundAddressError, resolveOutbound, type OutboundAddress } from '../../shared/outbound-address.js';
import { DestinationError, type DestinationTarget } from './destination.js';

/** The host and port of an http(s) URL field (the scheme's port when it names none); none for any other text. */
export function urlTargets(field: string, text: unknown): DestinationTarget[] {
  if (typeof text !== 'string' || text === '') return [];
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return [];
    return [{ field, host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) }];
  } catch {
    return [];
  }
}

/** A 400 for a destination field that names a host the platform will not reach (test steps show its words). */
export class AddressRefusedError extends ValidationError {}

/**
 * Refuses a config whose hosts are not public (in any spelling) unless the operator allows them;
 * `attr` names the field as nested destination fields are named. Names are checked again, once
 * resolved, when a run or a test step connects.
 */
export function checkTargets(targets: readonly DestinationTarget[]): void {
  for (const target of targets) {
    try {
      checkOutboundHost(target.host, target.port);
    } catch (error) {
      if (!(error instanceof OutboundAddressError)) throw error;
      throw new AddressRefusedError(`The ${target.field} of this destination is ${error.reason}: destinations reach public addresses only, unless the platform's operator allows the host.`, `destination__config__${target.field}`);
    }
  }
}

/** A refused address as the run's failure: not tried again, in fixed words; null for any other error. */
export function refusedAddress(error: unknown): DestinationError | null {
  return error instanceof OutboundAddressError ? new DestinationError(error.message, false) : null;
}

/** The checked address to connect to for a host (see resolveOutbound), or the DestinationError that stops the run. */
export async function destinationAddress(host: string, port: number): Promise<OutboundAddress> {
  try {
    return await resolveOutbound(host, port);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw refusedAddress(error) ?? new DestinationError(`The destination's host could not be resolved${code ? ` (${code})` : ''}.`, true);
  }
}
