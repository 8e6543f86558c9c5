import { describe, expect, it } from 'vitest';
import { classifyAddress } from './address-class.js';
import { checkWebhookUrl, strictWebhookUrlPolicy } from './webhook-url-policy.js';
import type { ResolveHost, WebhookUrlPolicy } from './webhook-url-policy.js';

const hosts: Record<string, readonly string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'metadata.internal': ['169.254.169.254'],
  'db.internal': ['10.1.2.3'],
  'kitchen-display': ['172.18.0.7'],
  'kitchen-metadata': ['172.18.0.8', '169.254.169.254'],
  'rebound.example.com': ['93.184.216.34', '127.0.0.1'],
  localhost: ['127.0.0.1', '::1'],
};
const resolve: ResolveHost = async (host) => {
  const addresses = hosts[host];
  if (!addresses) throw new Error('ENOTFOUND');
  return addresses;
};
const development: WebhookUrlPolicy = { allowHttp: true };
const kitchenOnly: WebhookUrlPolicy = { allowHttp: false, allowedInternalHosts: ['kitchen-display'] };
const reasonOf = async (url: string, policy = strictWebhookUrlPolicy) => {
  const check = await checkWebhookUrl(url, policy, resolve);
  return check.ok ? 'ok' : check.reason;
};

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.2', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('checkWebhookUrl', () => {
  it('accepts https to a public host and keeps the addresses it resolved', async () => {
    const check = await checkWebhookUrl('https://hooks.example.com/once', strictWebhookUrlPolicy, resolve);
    expect(check).toMatchObject({ ok: true, addresses: ['93.184.216.34'] });
  });

  it('refuses http, credentials, other schemes, unresolvable hosts and garbage', async () => {
    expect(await reasonOf('http://hooks.example.com/once')).toBe('the URL must be https');
    expect(await reasonOf('ftp://hooks.example.com/once')).toBe('the URL must be https');
    expect(await reasonOf('https://user:pw@hooks.example.com/')).toBe('the URL must not carry credentials');
    expect(await reasonOf('https://nowhere.example.com/')).toMatch(/does not resolve/);
    expect(await reasonOf('not a url')).toBe('not an absolute URL');
  });

  it('refuses loopback, private and link-local addresses, by name or literal, even when only one address is', async () => {
    expect(await reasonOf('https://localhost/')).toMatch(/loopback/);
    expect(await reasonOf('https://127.0.0.1:8443/')).toMatch(/loopback/);
    expect(await reasonOf('https://[::1]/')).toMatch(/loopback/);
    expect(await reasonOf('https://metadata.internal/')).toMatch(/link-local/);
    expect(await reasonOf('https://db.internal/')).toMatch(/private/);
    expect(await reasonOf('https://rebound.example.com/')).toMatch(/loopback/);
    expect(await reasonOf('https://0.0.0.0/')).toMatch(/reserved/);
  });

  it('accepts http to loopback only under the development flag', async () => {
    expect(await reasonOf('http://127.0.0.1:3200/webhooks', development)).toBe('ok');
    expect(await reasonOf('http://localhost:3200/webhooks', development)).toBe('ok');
    expect(await reasonOf('http://db.internal/webhooks', development)).toMatch(/private/);
    expect(await reasonOf('http://hooks.example.com/', development)).toMatch(
      /loopback hosts and allowed internal hosts only/,
    );
  });

  it('accepts the allowed internal hosts by name, over http too, and no other internal host', async () => {
    expect(await reasonOf('http://kitchen-display:3200/webhooks', kitchenOnly)).toBe('ok');
    expect(await reasonOf('https://kitchen-display/webhooks', kitchenOnly)).toBe('ok');
    expect(await reasonOf('http://db.internal/webhooks', kitchenOnly)).toBe('the URL must be https');
    expect(await reasonOf('https://db.internal/webhooks', kitchenOnly)).toMatch(/private/);
    expect(await reasonOf('https://172.18.0.7/webhooks', kitchenOnly)).toMatch(/private/);
    expect(await reasonOf('https://localhost/', kitchenOnly)).toMatch(/loopback/);
    expect(await reasonOf('http://hooks.example.com/', kitchenOnly)).toBe('the URL must be https');
    // Cloud metadata stays out of reach, whatever the list names.
    expect(
      await reasonOf('http://kitchen-metadata/', {
        ...kitchenOnly,
        allowedInternalHosts: ['kitchen-metadata'],
      }),
    ).toMatch(/link-local/);
  });

  it('says coarsely why a URL is refused', async () => {
    const refusalOf = async (url: string) => {
      const check = await checkWebhookUrl(url, strictWebhookUrlPolicy, resolve);
      return check.ok ? 'ok' : check.refusal;
    };
    expect(await refusalOf('http://hooks.example.com/')).toBe('invalid-url');
    expect(await refusalOf('https://nowhere.example.com/')).toBe('unresolvable');
    expect(await refusalOf('https://db.internal/')).toBe('blocked-address');
    expect(await refusalOf('https://0.0.0.0/')).toBe('blocked-address');
  });
});
