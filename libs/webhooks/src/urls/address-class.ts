import { BlockList, isIP } from 'node:net';

/** What kind of network an IP address belongs to, as far as webhook deliveries care. */
export type AddressClass = 'loopback' | 'private' | 'link-local' | 'reserved' | 'public';

const ranges = (entries: readonly [string, number, 'ipv4' | 'ipv6'][]): BlockList => {
  const list = new BlockList();
  for (const [network, prefix, family] of entries) list.addSubnet(network, prefix, family);
  return list;
};

const loopback = ranges([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const linkLocal = ranges([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
const privateNetworks = ranges([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);
const reserved = ranges([
  ['0.0.0.0', 8, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
]);

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`), so it is judged as IPv4. */
const unmapped = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
};

/**
 * Classifies an IP address: loopback, private (RFC 1918, CGNAT, IPv6 ULA), link-local (cloud metadata lives at
 * 169.254.169.254), reserved (unspecified, documentation, multicast, …) or public.
 *
 * @throws TypeError when `address` is not an IP address.
 * @example classifyAddress('169.254.169.254') // 'link-local'
 */
export const classifyAddress = (address: string): AddressClass => {
  const plain = unmapped(address);
  const version = isIP(plain);
  if (version === 0) throw new TypeError(`not an IP address: ${address}`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(plain, family)) return 'loopback';
  if (linkLocal.check(plain, family)) return 'link-local';
  if (privateNetworks.check(plain, family)) return 'private';
  if (reserved.check(plain, family)) return 'reserved';
  return 'public';
};
