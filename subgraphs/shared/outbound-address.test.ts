import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.js';
import { addressBytes, nonPublicReason } from './ip-ranges.js';
import { checkOutboundHost, OutboundAddressError, resolveOutbound } from './outbound-address.js';
import { allows, parseAllowList } from './outbound-allow-list.js';

const reason = (address: string) => nonPublicReason(addressBytes(address)!);
const refusal = (host: string, port = 80, list = '') => {
  try {
    checkOutboundHost(host, port, parseAllowList(list));
    return null;
  } catch (error) {
    if (error instanceof OutboundAddressError) return error.reason;
    throw error;
  }
};

describe('nonPublicReason', () => {
  it('names every range a tenant may not reach, IPv4 and IPv6', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'a loopback address'],
      ['127.255.1.2', 'a loopback address'],
      ['::1', 'a loopback address'],
      ['10.1.2.3', 'a private address'],
      ['172.31.0.1', 'a private address'],
      ['192.168.1.1', 'a private address'],
      ['fd12:3456::1', 'a private address'],
      ['169.254.169.254', 'the cloud metadata address'],
      ['fd00:ec2::254', 'the cloud metadata address'],
      ['169.254.10.10', 'a link-local address'],
      ['fe80::1', 'a link-local address'],
      ['0.0.0.0', 'an unspecified address'],
      ['::', 'an unspecified address'],
      ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
      ['224.0.0.1', 'a multicast address'],
      ['ff02::1', 'a multicast address'],
      ['255.255.255.255', 'the broadcast address'],
      ['240.0.0.1', 'a reserved address'],
      ['198.18.0.1', 'a reserved address'],
      ['192.0.2.1', 'a documentation address'],
      ['2001:db8::1', 'a documentation address'],
    ];
    for (const [address, expected] of cases) expect([address, reason(address)]).toEqual([address, expected]);
  });

  it('sees through IPv6 forms that carry an IPv4 address', () => {
    expect(reason('::ffff:127.0.0.1')).toBe('a loopback address');
    expect(reason('::ffff:7f00:1')).toBe('a loopback address');
    expect(reason('::127.0.0.1')).toBe('a loopback address');
    expect(reason('::ffff:169.254.169.254')).toBe('the cloud metadata address');
    expect(reason('64:ff9b::a00:1')).toBe('a private address');
    expect(reason('2002:7f00:1::')).toBe('a loopback address');
    expect(reason('2002:c0a8:101::1')).toBe('a private address');
  });

  it('lets public addresses through', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) expect([address, reason(address)]).toEqual([address, null]);
  });
});

describe('checkOutboundHost', () => {
  it('refuses every spelling of loopback, the metadata names and Unix sockets, without resolving anything', () => {
    for (const host of ['127.0.0.1', '2130706433', '0x7f000001', '0x7f.1', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost', 'LOCALHOST.', 'api.localhost']) {
      expect([host, refusal(host)]).toEqual([host, 'a loopback address']);
    }
    expect(refusal('169.254.169.254')).toBe('the cloud metadata address');
    expect(refusal('metadata.google.internal')).toBe('the cloud metadata address');
    expect(refusal('[fd00:ec2::254]')).toBe('the cloud metadata address');
    expect(refusal('/var/run/postgresql')).toBe('a Unix socket path');
    expect(refusal('/var/run/postgresql', 5432, '127.0.0.0/8')).toBe('a Unix socket path');
    expect(refusal('0.0.0.0')).toBe('an unspecified address');
    expect(refusal('[::]')).toBe('an unspecified address');
  });

  it('leaves names to be checked once resolved, and passes public addresses', () => {
    expect(refusal('warehouse.example.com')).toBeNull();
    expect(refusal('8.8.8.8')).toBeNull();
    expect(refusal('cafe.de')).toBeNull();
  });

  it('allows what DESTINATION_ALLOWED_HOSTS names: a host, a host:port (that port only), a CIDR block', () => {
    expect(refusal('127.0.0.1', 5432, '127.0.0.1')).toBeNull();
    expect(refusal('2130706433', 5432, '127.0.0.1')).toBeNull();
    expect(refusal('localhost', 5432, 'localhost')).toBeNull();
    expect(refusal('127.0.0.1', 5432, '127.0.0.1:5432')).toBeNull();
    expect(refusal('127.0.0.1', 5433, '127.0.0.1:5432')).toBe('a loopback address');
    expect(refusal('10.2.3.4', 443, '10.0.0.0/8')).toBeNull();
    expect(refusal('10.2.3.4', 443, '10.0.0.0/16')).toBe('a private address');
    expect(refusal('[::ffff:10.2.3.4]', 443, '10.0.0.0/8')).toBeNull();
    expect(refusal('[fd00::5]', 443, '[fd00::5]:443')).toBeNull();
  });
});

describe('resolveOutbound', () => {
  it('checks what a name resolves to and answers the address it checked', async () => {
    await expect(resolveOutbound('localhost', 80, parseAllowList(''))).rejects.toBeInstanceOf(OutboundAddressError);
    await expect(resolveOutbound('127.0.0.1', 80, parseAllowList(''))).rejects.toThrow('it is a loopback address');
    expect(await resolveOutbound('localhost', 80, parseAllowList('127.0.0.1,::1'))).toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    expect(await resolveOutbound('0x7f.1', 80, parseAllowList('127.0.0.1'))).toEqual({ address: '127.0.0.1', family: 4 });
  });
});

describe('parseAllowList', () => {
  it('reads hosts, host:port, [v6]:port and CIDR blocks, and refuses anything else', () => {
    const list = parseAllowList(' warehouse.internal , db.internal:5432,10.0.0.0/8, [fd00::1]:443 ,fd00:ab::/32,');
    expect(list).toHaveLength(5);
    expect(allows(list, { name: 'warehouse.internal', port: 1, address: addressBytes('10.9.9.9')! })).toBe(true);
    expect(allows(list, { name: 'db.internal', port: 5433, address: addressBytes('192.168.0.1')! })).toBe(false);
    for (const bad of ['10.0.0.0/33', 'db:0', 'db:x', 'a b', 'http://db', '10.0.0.0/8/1']) expect(() => parseAllowList(bad)).toThrow(`'${bad}' is not a host, host:port or CIDR block`);
  });

  it('stops start-up with a one-line ConfigError naming the setting', () => {
    expect(() => parseConfig({ DESTINATION_ALLOWED_HOSTS: 'db.internal,10.0.0.0/99', SECRET_KEY: 'x'.repeat(32) })).toThrow(ConfigError);
    expect(() => parseConfig({ DESTINATION_ALLOWED_HOSTS: '10.0.0.0/99', SECRET_KEY: 'x'.repeat(32) })).toThrow("invalid setting DESTINATION_ALLOWED_HOSTS: '10.0.0.0/99' is not a host, host:port or CIDR block");
    expect(parseConfig({ DESTINATION_ALLOWED_HOSTS: '', SECRET_KEY: 'x'.repeat(32) }).DESTINATION_ALLOWED_HOSTS).toBe('');
  });
});
