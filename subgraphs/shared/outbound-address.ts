import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { config } from './config.js';
import { addressBytes, nonPublicReason } from './ip-ranges.js';
import { allows, normalHost, parseAllowList, type AllowList } from './outbound-allow-list.js';

/**
 * A host a tenant's configuration names that the platform will not reach: loopback, private,
 * link-local, metadata, reserved, a Unix socket. The message is fixed: it names the kind of
 * address, never what resolved or what answered.
 */
export class OutboundAddressError extends Error {
  constructor(readonly reason: string) {
    super(`The destination's address is refused: it is ${reason}. Destinations reach public addresses only, unless the platform's operator allows the host.`);
  }
}

/** Names that stand for an address whatever DNS says, and what they are. */
const KNOWN_NAMES: Record<string, { address: string; reason: string }> = {
  localhost: { address: '127.0.0.1', reason: 'a loopback address' },
  'localhost.localdomain': { address: '127.0.0.1', reason: 'a loopback address' },
  'ip6-localhost': { address: '::1', reason: 'a loopback address' },
  'ip6-loopback': { address: '::1', reason: 'a loopback address' },
  'metadata.google.internal': { address: '169.254.169.254', reason: 'the cloud metadata address' },
  'metadata.goog': { address: '169.254.169.254', reason: 'the cloud metadata address' },
  metadata: { address: '169.254.169.254', reason: 'the cloud metadata address' },
  'instance-data': { address: '169.254.169.254', reason: 'the cloud metadata address' },
  'instance-data.ec2.internal': { address: '169.254.169.254', reason: 'the cloud metadata address' },
};

/**
 * The IP address a host spells, in any form a resolver reads as one (`2130706433`, `0x7f.1`,
 * `127.1`, `[::ffff:127.0.0.1]`), as the WHATWG URL parser and `inet_aton` both read them.
 */
function literalAddress(name: string): string | null {
  if (isIP(name)) return name;
  if (!/^[0-9a-fx.]+$/.test(name)) return null;
  try {
    const parsed = new URL(`http://${name}/`).hostname;
    return isIP(parsed) === 4 ? parsed : null;
  } catch {
    return null;
  }
}

let parsedList: { text: string; list: AllowList } | undefined;

/** DESTINATION_ALLOWED_HOSTS of the process configuration, parsed once per value. */
export function configuredAllowList(): AllowList {
  const text = config().DESTINATION_ALLOWED_HOSTS;
  if (parsedList?.text !== text) parsedList = { text, list: parseAllowList(text) };
  return parsedList.list;
}

/** Why an address may not be reached for this host and port, or null when it may. */
function refusal(name: string, port: number, address: string, reason: string | null, list: AllowList): string | null {
  const bytes = addressBytes(address)!;
  const why = reason ?? nonPublicReason(bytes);
  return why && !allows(list, { name, port, address: bytes }) ? why : null;
}

/** What a host stands for before any resolution: a Unix socket, an IP address or a known name; null for another name. */
function staticVerdict(host: string, port: number, list: AllowList): { literal: string | null; refused: string | null } {
  if (host.includes('/')) return { literal: null, refused: 'a Unix socket path' };
  const name = normalHost(host);
  if (name === '') return { literal: null, refused: 'an empty host' };
  const literal = literalAddress(name);
  if (literal) return { literal, refused: refusal(name, port, literal, null, list) };
  const known = KNOWN_NAMES[name] ?? (name.endsWith('.localhost') ? KNOWN_NAMES.localhost : undefined);
  return { literal: null, refused: known ? refusal(name, port, known.address, known.reason, list) : null };
}

/**
 * Checks a host a tenant configures without resolving it (a create or update): refuses a Unix
 * socket, a non-public IP address in any spelling, `localhost` and the metadata names, unless
 * the allow-list holds them. Other names are checked when connected ({@link resolveOutbound}).
 */
export function checkOutboundHost(host: string, port: number, list: AllowList = configuredAllowList()): void {
  const { refused } = staticVerdict(host, port, list);
  if (refused) throw new OutboundAddressError(refused);
}

export interface OutboundAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host once and hands back an address it may connect to: public, or allowed by
 * DESTINATION_ALLOWED_HOSTS. The caller connects to that address itself (no second resolution, so
 * a name that later resolves elsewhere gets nowhere) and checks TLS certificates against the name.
 * Throws {@link OutboundAddressError} when no address may be reached, and the resolver's error
 * when the name does not resolve.
 */
export async function resolveOutbound(host: string, port: number, list: AllowList = configuredAllowList()): Promise<OutboundAddress> {
  const { literal, refused } = staticVerdict(host, port, list);
  if (refused) throw new OutboundAddressError(refused);
  if (literal) return { address: literal, family: isIP(literal) as 4 | 6 };
  const name = normalHost(host);
  const found = await lookup(name, { all: true, verbatim: true });
  const reasons = found.map((entry) => refusal(name, port, entry.address, null, list));
  const index = reasons.indexOf(null);
  if (index < 0) throw new OutboundAddressError(reasons[0] ?? 'an unresolved host');
  return { address: found[index]!.address, family: found[index]!.family as 4 | 6 };
}
