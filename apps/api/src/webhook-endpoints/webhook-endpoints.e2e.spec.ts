import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '@once/outbox/testing';
import type { WebhookReceiver } from '@once/outbox/testing';
import { putDemoMenu, useTestApi } from '../testing/index.js';

const env = useTestApi({ webhookUrlPolicy: { allowHttp: true }, webhookReplayMaxEvents: 5 });
const secrets: string[] = [];
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secrets: () => secrets });
  await putDemoMenu(env.api.url, env.tenant.ada);
});

afterAll(async () => {
  await receiver?.close();
});

const command = (path: string, body: unknown, key = randomUUID()) =>
  env.http.post(path, { apiKey: env.tenant.ada, key, body });
const read = (path: string) => env.http.get(path, env.tenant.ada, {});
const remove = (path: string) =>
  fetch(`${env.api.url}${path}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${env.tenant.ada}`, 'idempotency-key': randomUUID() },
  });
const placeOrder = async (): Promise<string> =>
  (await command('/orders', { currency: 'EUR', lines: [{ sku: 'flat-white', quantity: 1 }] })).json<{
    id: string;
  }>().id;

describe('webhook endpoints', () => {
  let endpointId: string;

  it('registers an endpoint with a whsec_ secret shown once (a replay of the key shows the same answer)', async () => {
    const key = randomUUID();
    const body = { url: receiver.url, eventTypes: ['OrderPlaced', 'OrderServed'] };
    const created = await command('/webhook-endpoints', body, key);
    expect(created.status).toBe(201);
    const endpoint = created.json<{ id: string; secret: string; status: string }>();
    expect(endpoint).toMatchObject({
      url: receiver.url,
      status: 'enabled',
      eventTypes: ['OrderPlaced', 'OrderServed'],
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect((await command('/webhook-endpoints', body, key)).text).toBe(created.text);
    secrets.push(endpoint.secret);
    endpointId = endpoint.id;
    await expect.poll(async () => (await read(`/webhook-endpoints/${endpointId}`)).status).toBe(200);
    const listed = (await read('/webhook-endpoints')).json<{ endpoints: object[] }>().endpoints;
    expect(listed).toEqual([
      expect.objectContaining({ id: endpointId, status: 'enabled', failingSince: null }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
  });

  it('delivers the tenant’s orders to it, and shows each attempt', async () => {
    const orderId = await placeOrder();
    await expect
      .poll(() => receiver.requests.some((request) => request.body.includes(orderId)), { timeout: 15_000 })
      .toBe(true);
    const delivered = receiver.requests.find((request) => request.body.includes(orderId));
    expect(JSON.parse(delivered?.body ?? '{}')).toMatchObject({ type: 'OrderPlaced', data: { orderId } });
    const messageId = delivered?.id ?? '';
    await expect
      .poll(async () =>
        (await read(`/webhook-endpoints/${endpointId}/attempts?messageId=${messageId}`)).json(),
      )
      .toEqual({
        attempts: [expect.objectContaining({ messageId, attempt: 1, outcome: 'delivered', statusCode: 204 })],
      });
    const messages = (await read(`/webhook-endpoints/${endpointId}/messages?status=delivered`)).json<{
      messages: { messageId: string }[];
    }>();
    expect(messages.messages.map((message) => message.messageId)).toContain(messageId);

    const redelivered = await env.http.post(
      `/webhook-endpoints/${endpointId}/messages/${messageId}/redeliver`,
      {
        apiKey: env.tenant.ada,
      },
    );
    expect(redelivered.status).toBe(202);
    await expect
      .poll(() => receiver.requests.filter((request) => request.id === messageId).length, { timeout: 15_000 })
      .toBe(2);

    const replayed = await env.http.post(`/webhook-endpoints/${endpointId}/replay`, {
      apiKey: env.tenant.ada,
      body: {
        from: new Date(Date.now() - 3_600_000).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    expect(replayed.json()).toEqual({ redelivering: 1 });
    await expect
      .poll(() => receiver.requests.filter((request) => request.id === messageId).length, { timeout: 15_000 })
      .toBe(3);
  });

  it('rotates the secret: deliveries carry both signatures during the grace period', async () => {
    const rotated = await command(`/webhook-endpoints/${endpointId}/rotate-secret`, {
      gracePeriodSeconds: 3600,
    });
    expect(rotated.status).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.json<{
      secret: string;
      previousSecretExpiresAt: string;
    }>();
    expect(secret).not.toBe(secrets[0]);
    expect(Date.parse(previousSecretExpiresAt)).toBeGreaterThan(Date.now());
    await expect
      .poll(async () => (await read(`/webhook-endpoints/${endpointId}`)).json())
      .toMatchObject({ previousSecretExpiresAt });
    const orderId = await placeOrder();
    await expect
      .poll(() => receiver.requests.some((request) => request.body.includes(orderId)), { timeout: 15_000 })
      .toBe(true);
    const signatures = String(
      receiver.requests.find((request) => request.body.includes(orderId))?.headers['webhook-signature'],
    );
    expect(signatures.split(' ')).toHaveLength(2);
    secrets.splice(0, secrets.length, secret);
  });

  it('refuses URLs that are not https or reach inside the network, and unknown event types', async () => {
    const refuse = async (url: string, reason: RegExp) => {
      const answer = await command('/webhook-endpoints', { url, eventTypes: ['OrderPlaced'] });
      expect(answer.status).toBe(422);
      expect(answer.json()).toMatchObject({
        type: '/problems/invalid-webhook-url',
        detail: expect.stringMatching(reason),
      });
    };
    await refuse('https://169.254.169.254/latest/meta-data', /link-local/);
    await refuse('https://10.0.0.8/hooks', /private/);
    await refuse('ftp://example.com/hooks', /https/);
    await refuse('http://user:pw@127.0.0.1/hooks', /credentials/);
    const unknown = await command('/webhook-endpoints', {
      url: receiver.url,
      eventTypes: ['IdempotencyKeyClaimed'],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json()).toMatchObject({
      type: '/problems/invalid-webhook-event-types',
      data: { unknown: ['IdempotencyKeyClaimed'] },
    });
  });

  it('holds what happens while the endpoint is disabled and delivers it once enabled; only dead or held messages can be deleted', async () => {
    const disabled = await command(`/webhook-endpoints/${endpointId}/disable`, {});
    expect(disabled.json()).toMatchObject({ status: 'disabled' });
    await expect
      .poll(async () => (await read(`/webhook-endpoints/${endpointId}`)).json())
      .toMatchObject({ status: 'disabled' });
    const orderId = await placeOrder();
    const held = async () =>
      (await read(`/webhook-endpoints/${endpointId}/messages?status=held`)).json<{
        messages: { messageId: string; stream: string }[];
      }>().messages;
    await expect.poll(async () => (await held()).some((m) => m.stream.endsWith(orderId))).toBe(true);
    expect(receiver.requests.some((request) => request.body.includes(orderId))).toBe(false);

    const delivered = (await read(`/webhook-endpoints/${endpointId}/messages?status=delivered`)).json<{
      messages: { messageId: string }[];
    }>().messages[0];
    const refused = await fetch(
      `${env.api.url}/webhook-endpoints/${endpointId}/messages/${delivered?.messageId ?? ''}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${env.tenant.ada}` } },
    );
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ type: '/problems/webhook-message-not-removable' });
    const unknown = await fetch(`${env.api.url}/webhook-endpoints/${endpointId}/messages/${randomUUID()}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${env.tenant.ada}` },
    });
    expect(unknown.status).toBe(404);

    expect((await command(`/webhook-endpoints/${endpointId}/enable`, {})).json()).toMatchObject({
      status: 'enabled',
    });
    await expect
      .poll(() => receiver.requests.some((request) => request.body.includes(orderId)), { timeout: 15_000 })
      .toBe(true);
    expect(await held()).toEqual([]);
  });

  it('replays a range to an endpoint registered after it: events never enqueued for it are read from the log and delivered', async () => {
    const from = new Date().toISOString();
    const orderId = await placeOrder();
    await expect
      .poll(() => receiver.requests.some((request) => request.body.includes(orderId)), { timeout: 15_000 })
      .toBe(true);
    const created = await command('/webhook-endpoints', { url: receiver.url, eventTypes: ['OrderPlaced'] });
    expect(created.status).toBe(201);
    const later = created.json<{ id: string; secret: string }>();
    secrets.push(later.secret);
    await expect.poll(async () => (await read(`/webhook-endpoints/${later.id}`)).status).toBe(200);
    const messages = async () =>
      (await read(`/webhook-endpoints/${later.id}/messages`)).json<{
        messages: { messageId: string; stream: string; status: string }[];
      }>().messages;
    expect(await messages()).toEqual([]);

    const replayed = await env.http.post(`/webhook-endpoints/${later.id}/replay`, {
      apiKey: env.tenant.ada,
      body: { from, to: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(replayed.json()).toEqual({ redelivering: 1 });
    await expect
      .poll(() => receiver.requests.filter((request) => request.body.includes(orderId)).length, {
        timeout: 15_000,
      })
      .toBe(2);
    await expect
      .poll(async () => (await messages()).map(({ stream, status }) => ({ stream, status })))
      .toEqual([{ stream: expect.stringContaining(orderId), status: 'delivered' }]);
    expect((await remove(`/webhook-endpoints/${later.id}`)).status).toBe(200);
  });

  it('refuses a replay whose range holds more log events than the bound', async () => {
    for (let placed = 0; placed < 5; placed++) await placeOrder();
    const replayed = await env.http.post(`/webhook-endpoints/${endpointId}/replay`, {
      apiKey: env.tenant.ada,
      body: {
        from: new Date(Date.now() - 3_600_000).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    expect(replayed.status).toBe(422);
    expect(replayed.json()).toMatchObject({ type: '/problems/webhook-replay-too-large', maxEvents: 5 });
  });

  it('disables, enables and deletes an endpoint; another tenant never sees it', async () => {
    const disabled = await command(`/webhook-endpoints/${endpointId}/disable`, {});
    expect(disabled.json()).toMatchObject({ status: 'disabled', disabledReason: 'disabled by the tenant' });
    expect((await command(`/webhook-endpoints/${endpointId}/enable`, {})).json()).toMatchObject({
      status: 'enabled',
    });
    const other = await env.api.tenant();
    expect((await env.http.get(`/webhook-endpoints/${endpointId}`, other.ada, {})).status).toBe(404);
    expect((await env.http.get(`/webhook-endpoints/${endpointId}/attempts`, other.ada, {})).status).toBe(404);
    const deleted = await remove(`/webhook-endpoints/${endpointId}`);
    expect(deleted.status).toBe(200);
    await expect.poll(async () => (await read(`/webhook-endpoints/${endpointId}`)).status).toBe(404);
    expect((await command(`/webhook-endpoints/${endpointId}/enable`, {})).status).toBe(404);
  });

  it('reports the outbox in /metrics', async () => {
    const metrics = await (await fetch(`${env.api.url}/metrics`)).text();
    expect(metrics).toMatch(/^once_webhook_attempts_total\{outcome="delivered"\} [1-9]/m);
    expect(metrics).toContain('once_webhook_retry_backlog');
    expect(metrics).toContain('once_webhook_oldest_undelivered_seconds');
    expect(metrics).toContain('once_webhook_held_messages');
  });
});
