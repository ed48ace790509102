import { isIP } from 'node:net';

/** An address as 16 bytes: IPv4 as its IPv4-mapped IPv6 form, so that both spellings compare equal. */
export type AddressBytes = Uint8Array;

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** The bytes of an IP address as `net.isIP` takes it (a zone id is dropped); null for anything else. */
export function addressBytes(address: string): AddressBytes | null {
  const plain = address.replace(/%.*$/, '');
  const version = isIP(plain);
  if (version === 4) return Uint8Array.from([...MAPPED_PREFIX, ...plain.split('.').map(Number)]);
  if (version !== 6) return null;
  let text = plain;
  let dotted: number[] | null = null;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    dotted = tail[1]!.split('.').map(Number);
    text = `${text.slice(0, -tail[1]!.length)}0:0`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const front = head ? head.split(':') : [];
  const back = rest ? rest.split(':') : [];
  const groups = rest === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    const value = parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  if (dotted) bytes.set(dotted, 12);
  return bytes;
}

/** A CIDR block over {@link AddressBytes} (an IPv4 block's bits count from the mapped prefix). */
export interface Block {
  bytes: AddressBytes;
  bits: number;
}

/** `address/bits`, IPv4 or IPv6; null when it is not one. */
export function parseBlock(text: string): Block | null {
  const [address, bits, extra] = text.split('/');
  if (extra !== undefined || !address || !bits || !/^\d{1,3}$/.test(bits)) return null;
  const bytes = addressBytes(address);
  const width = isIP(address) === 4 ? 32 : 128;
  if (!bytes || Number(bits) > width || address.includes('%')) return null;
  return { bytes, bits: Number(bits) + 128 - width };
}

export function inBlock(address: AddressBytes, block: Block): boolean {
  for (let bit = 0; bit < block.bits; bit += 8) {
    const mask = block.bits - bit >= 8 ? 0xff : (0xff << (8 - (block.bits - bit))) & 0xff;
    if ((address[bit / 8]! & mask) !== (block.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

export function sameAddress(a: AddressBytes, b: AddressBytes): boolean {
  return a.every((byte, index) => byte === b[index]);
}

const block = (text: string): Block => parseBlock(text)!;

/** IPv4's special-purpose ranges (IANA's registry), most specific first, and what each is. */
const IPV4_RANGES: readonly [Block, string][] = [
  [block('169.254.169.254/32'), 'the cloud metadata address'],
  // Azure's WireServer answers instances from a public address.
  [block('168.63.129.16/32'), 'the cloud metadata address'],
  [block('0.0.0.0/8'), 'an unspecified address'],
  [block('10.0.0.0/8'), 'a private address'],
  [block('100.64.0.0/10'), 'a shared (carrier-grade NAT) address'],
  [block('127.0.0.0/8'), 'a loopback address'],
  [block('169.254.0.0/16'), 'a link-local address'],
  [block('172.16.0.0/12'), 'a private address'],
  [block('192.0.0.0/24'), 'a reserved address'],
  [block('192.0.2.0/24'), 'a documentation address'],
  [block('192.88.99.0/24'), 'a reserved address'],
  [block('192.168.0.0/16'), 'a private address'],
  [block('198.18.0.0/15'), 'a reserved address'],
  [block('198.51.100.0/24'), 'a documentation address'],
  [block('203.0.113.0/24'), 'a documentation address'],
  [block('224.0.0.0/4'), 'a multicast address'],
  [block('255.255.255.255/32'), 'the broadcast address'],
  [block('240.0.0.0/4'), 'a reserved address'],
];

const IPV6_RANGES: readonly [Block, string][] = [
  [block('::/128'), 'an unspecified address'],
  [block('::1/128'), 'a loopback address'],
  [block('fd00:ec2::254/128'), 'the cloud metadata address'],
  [block('64:ff9b:1::/48'), 'a reserved address'],
  [block('100::/64'), 'a reserved address'],
  [block('2001:db8::/32'), 'a documentation address'],
  [block('2001::/23'), 'a reserved address'],
  [block('fc00::/7'), 'a private address'],
  [block('fe80::/10'), 'a link-local address'],
  [block('fec0::/10'), 'a link-local address'],
  [block('ff00::/8'), 'a multicast address'],
];

/** IPv6 blocks that carry an IPv4 address, and where its four bytes sit. */
const EMBEDDING: readonly [Block, number][] = [
  [block('::ffff:0:0/96'), 12],
  [block('::/96'), 12],
  [block('64:ff9b::/96'), 12],
  [block('2002::/16'), 2],
];

const GLOBAL_UNICAST = block('2000::/3');

/**
 * Why an address may not be reached by what a tenant configures (loopback, private, link-local,
 * metadata, reserved, multicast; IPv6 forms that carry such an IPv4 address too), or null when it
 * is public.
 */
export function nonPublicReason(address: AddressBytes): string | null {
  for (const [range, reason] of IPV6_RANGES) if (inBlock(address, range)) return reason;
  for (const [range, offset] of EMBEDDING) {
    if (!inBlock(address, range)) continue;
    const embedded = Uint8Array.from([...MAPPED_PREFIX, ...address.subarray(offset, offset + 4)]);
    for (const [v4Range, reason] of IPV4_RANGES) if (inBlock(embedded, v4Range)) return reason;
    return null;
  }
  return inBlock(address, GLOBAL_UNICAST) ? null : 'a reserved address';
}
