import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from './address-class.js';
import type { AddressClass } from './address-class.js';

/** Which webhook URLs a deployment accepts. Both flags are off in production. */
export interface WebhookUrlPolicy {
  /** Development only: `http:` is accepted for hosts that resolve to loopback (and to private networks too when `allowPrivateNetworks` is on). */
  readonly allowHttp: boolean;
  /** Hosts resolving to loopback, private or link-local addresses are accepted (a private network deployment). */
  readonly allowPrivateNetworks: boolean;
}

/** The production policy: https to public addresses only. */
export const strictWebhookUrlPolicy: WebhookUrlPolicy = { allowHttp: false, allowPrivateNetworks: false };

/** Resolves a host name to every address it has (`dns.lookup` with `all: true` by default). */
export type ResolveHost = (host: string) => Promise<readonly string[]>;

const resolveWithDns: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export type WebhookUrlCheck =
  | { readonly ok: true; readonly url: URL; readonly addresses: readonly string[] }
  | { readonly ok: false; readonly reason: string };

const refuse = (reason: string): WebhookUrlCheck => ({ ok: false, reason });

/** The host of a URL without IPv6 brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks a webhook URL before it is stored and again before each delivery (a host may resolve elsewhere later):
 * `https:` (or `http:` under the development flag, to loopback only unless private networks are allowed), no
 * credentials, and every address the host resolves to is public, unless the policy allows private networks.
 * Loopback, private, link-local and reserved addresses are refused otherwise (no SSRF through webhooks).
 *
 * @example
 * const check = await checkWebhookUrl('https://example.com/hooks', strictWebhookUrlPolicy);
 * if (!check.ok) throw new Error(check.reason);
 */
export const checkWebhookUrl = async (
  text: string,
  policy: WebhookUrlPolicy,
  resolve: ResolveHost = resolveWithDns,
): Promise<WebhookUrlCheck> => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('the URL must be https');
  if (url.protocol === 'http:' && !policy.allowHttp) return refuse('the URL must be https');
  if (url.username || url.password) return refuse('the URL must not carry credentials');
  const host = hostOf(url);
  let addresses: readonly string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return refuse(`the host ${host} does not resolve`);
  }
  if (addresses.length === 0) return refuse(`the host ${host} does not resolve`);
  const classes = new Set<AddressClass>(addresses.map(classifyAddress));
  if (classes.has('reserved')) return refuse(`the host ${host} resolves to a reserved address`);
  const internal = [...classes].filter((kind) => kind !== 'public');
  const loopbackForDevelopment =
    policy.allowHttp && internal.length === 1 && classes.size === 1 && classes.has('loopback');
  if (internal.length > 0 && !policy.allowPrivateNetworks && !loopbackForDevelopment) {
    return refuse(`the host ${host} resolves to a ${internal.join(' and ')} address`);
  }
  if (url.protocol === 'http:' && classes.has('public'))
    return refuse('http is accepted for loopback and private hosts only');
  return { ok: true, url, addresses };
};
