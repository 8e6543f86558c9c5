import { isIP } from 'node:net';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent } from 'undici';

/** An error of the pinned lookup: the connection asked for a host the URL check did not resolve. */
export class UncheckedHostError extends Error {
  readonly code = 'ERR_WEBHOOK_UNCHECKED_HOST';
  constructor(readonly host: string) {
    super(`the webhook connection asked for ${host}, which the URL check did not resolve`);
    this.name = 'UncheckedHostError';
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `net.connect` lookup that answers with the addresses the URL check resolved and never asks DNS: the socket goes
 * to an address the policy accepted, whatever the host's DNS says by then (no rebinding between check and connect).
 *
 * @example
 * net.connect({ host: 'hooks.example.com', port: 443, lookup: pinnedLookup('hooks.example.com', ['93.184.216.34']) });
 */
export const pinnedLookup =
  (host: string, addresses: readonly string[]) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const entries = addresses
      .map((address) => ({ address, family: isIP(address) }))
      .filter(
        (entry) => options.family === undefined || options.family === 0 || entry.family === options.family,
      );
    const [first] = entries;
    if (hostname !== host || first === undefined) {
      callback(new UncheckedHostError(hostname), '');
      return;
    }
    if (options.all) callback(null, entries);
    else callback(null, first.address, first.family);
  };

/**
 * An undici `Agent` for one checked webhook URL: every connection it opens resolves the URL's host through
 * `pinnedLookup`, so it reaches only the addresses the check accepted. TLS still verifies the certificate against
 * the host name (SNI and the check use the name, not the address).
 *
 * @example
 * const agent = createPinnedAgent(check.url, check.addresses);
 * await agent.request({ origin: check.url.origin, path: '/hooks', method: 'POST', body });
 */
export const createPinnedAgent = (url: URL, addresses: readonly string[]): Agent =>
  new Agent({
    connect: { lookup: pinnedLookup(url.hostname.replace(/^\[(.*)\]$/, '$1'), addresses) },
  });
