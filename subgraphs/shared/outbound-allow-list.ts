import { isIP } from 'node:net';
import { addressBytes, inBlock, parseBlock, sameAddress, type AddressBytes, type Block } from './ip-ranges.js';

/** One entry of DESTINATION_ALLOWED_HOSTS. */
type AllowEntry = { block: Block } | { address: AddressBytes; port: number | null } | { name: string; port: number | null };

/** What the operator allows although it is not public (DESTINATION_ALLOWED_HOSTS, parsed). */
export type AllowList = readonly AllowEntry[];

/** Where a connection would go: the host as the tenant wrote it, its port, and one address it stands for. */
export interface OutboundTarget {
  name: string;
  port: number;
  address: AddressBytes;
}

const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A host as it is compared: lower case, without brackets or a trailing dot. */
export function normalHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

function parsePort(text: string): number | null {
  return /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535 ? Number(text) : null;
}

function parseEntry(entry: string): AllowEntry | null {
  if (entry.includes('/')) {
    const block = parseBlock(entry);
    return block && { block };
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const colon = entry.lastIndexOf(':');
  const [host, portText] = bracketed ? [bracketed[1]!, bracketed[2]] : isIP(entry) === 6 || colon < 0 ? [entry, undefined] : [entry.slice(0, colon), entry.slice(colon + 1)];
  const port = portText === undefined ? null : parsePort(portText);
  if (portText !== undefined && port === null) return null;
  const address = addressBytes(host);
  if (address) return { address, port };
  const name = normalHost(host);
  return HOST_NAME.test(name) ? { name, port } : null;
}

/**
 * Reads DESTINATION_ALLOWED_HOSTS: `host`, `host:port` (`[v6]:port`) or CIDR entries separated by
 * commas. Throws an Error naming the first entry that is none of those.
 */
export function parseAllowList(text: string): AllowList {
  const entries: AllowEntry[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const parsed = parseEntry(entry);
    if (!parsed) throw new Error(`'${entry}' is not a host, host:port or CIDR block`);
    entries.push(parsed);
  }
  return entries;
}

/**
 * Whether the list allows a target: a CIDR block holding its address, that address itself, or the
 * name the tenant wrote; an entry with a port allows that port only.
 */
export function allows(list: AllowList, target: OutboundTarget): boolean {
  return list.some((entry) => {
    if ('block' in entry) return inBlock(target.address, entry.block);
    if (entry.port !== null && entry.port !== target.port) return false;
    return 'address' in entry ? sameAddress(entry.address, target.address) : entry.name === target.name;
  });
}
