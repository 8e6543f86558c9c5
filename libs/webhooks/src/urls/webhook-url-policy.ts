import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from './address-class.js';
import type { AddressClass } from './address-class.js';

/** Which webhook URLs a deployment accepts. Production: https to public addresses only, no internal hosts. */
export interface WebhookUrlPolicy {
  /** Development only: `http:` is accepted for hosts that resolve to loopback only (and for allowed internal hosts). */
  readonly allowHttp: boolean;
  /**
   * Host names every tenant may deliver to although they resolve to loopback or private addresses, e.g. the kitchen
   * display on a compose network (`http:` accepted for them): the operator's own services, by exact name. Link-local
   * and reserved addresses stay refused. None by default.
   */
  readonly allowedInternalHosts?: readonly string[];
}

/** The production policy: https to public addresses only. */
export const strictWebhookUrlPolicy: WebhookUrlPolicy = { allowHttp: false, allowedInternalHosts: [] };

/** Resolves a host name to every address it has (`dns.lookup` with `all: true` by default). */
export type ResolveHost = (host: string) => Promise<readonly string[]>;

const resolveWithDns: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** Why a URL is refused, coarsely: what a tenant may be told about a delivery that was not attempted. */
export type WebhookUrlRefusal = 'invalid-url' | 'unresolvable' | 'blocked-address';

export type WebhookUrlCheck =
  | { readonly ok: true; readonly url: URL; readonly addresses: readonly string[] }
  | { readonly ok: false; readonly refusal: WebhookUrlRefusal; readonly reason: string };

const refuse = (refusal: WebhookUrlRefusal, reason: string): WebhookUrlCheck => ({
  ok: false,
  refusal,
  reason,
});

/** The host of a URL without IPv6 brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks a webhook URL before it is stored and again before each delivery (a host may resolve elsewhere later):
 * `https:` (or `http:` under the development flag, to loopback only), no credentials, and every address the host
 * resolves to is public. Loopback, private, link-local and reserved addresses are refused (no SSRF through webhooks),
 * except loopback and private addresses of the policy's allowed internal hosts. The addresses returned are the ones to
 * connect to: a sender that resolves the host again may reach another (DNS rebinding).
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
    return refuse('invalid-url', 'not an absolute URL');
  }
  const host = hostOf(url);
  const allowedInternal = (policy.allowedInternalHosts ?? []).includes(host);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return refuse('invalid-url', 'the URL must be https');
  if (url.protocol === 'http:' && !policy.allowHttp && !allowedInternal)
    return refuse('invalid-url', 'the URL must be https');
  if (url.username || url.password) return refuse('invalid-url', 'the URL must not carry credentials');
  let addresses: readonly string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return refuse('unresolvable', `the host ${host} does not resolve`);
  }
  if (addresses.length === 0) return refuse('unresolvable', `the host ${host} does not resolve`);
  const classes = new Set<AddressClass>(addresses.map(classifyAddress));
  if (classes.has('reserved'))
    return refuse('blocked-address', `the host ${host} resolves to a reserved address`);
  const internal = [...classes].filter((kind) => kind !== 'public');
  const blocked = allowedInternal
    ? internal.filter((kind) => kind === 'link-local')
    : policy.allowHttp && classes.size === 1 && classes.has('loopback')
      ? []
      : internal;
  if (blocked.length > 0)
    return refuse('blocked-address', `the host ${host} resolves to a ${blocked.join(' and ')} address`);
  if (url.protocol === 'http:' && !allowedInternal && classes.has('public'))
    return refuse('invalid-url', 'http is accepted for loopback hosts and allowed internal hosts only');
  return { ok: true, url, addresses };
};
