import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { asOrderId, asTenantId, asWebhookEndpointId, orderStream, webhookEndpointStream } from '@once/domain';
import { comparePositions, parsePosition } from '@once/event-store';
import { freshTenantId, waitFor } from '@once/testing';
import {
  createSecretsKeyring,
  generateSecretsKey,
  generateWebhookSecret,
  parseSecretsKeys,
} from '@once/webhooks';
import { listWebhookAttempts, listWebhookMessages, webhookDeliveryMetrics } from '../delivery-state/index.js';
import { registerEndpointInLog, useRelayTestBed } from '../testing/index.js';
import { createPinnedAgent, UncheckedHostError } from './pinned-agent.js';
import { relayLeaseName } from './start-webhook-relay.js';

const bed = useRelayTestBed();
const { relay, receiver, register, order } = bed;

describe('the webhook relay', () => {
  it('delivers the subscribed events of the endpoint’s tenant, signed so the standardwebhooks package verifies them', async () => {
    await relay();
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const endpointId = await register(tenantId, target.url, secret);
    const [placed, served] = await order(tenantId, ['OrderPlaced', 'OrderServed', 'OrderCompleted']);
    await order(freshTenantId());
    await waitFor(() => target.applied.length === 2, 'two deliveries');
    expect(target.applied).toEqual([placed, served]);
    const first = target.requests[0];
    expect(
      new Webhook(secret).verify(first?.body ?? '', { ...first?.headers } as Record<string, string>),
    ).toMatchObject({
      type: 'OrderPlaced',
      data: { tenantId },
    });
    await waitFor(
      async () =>
        (await listWebhookMessages(bed.db.pool, endpointId, { limit: 10 })).every(
          (m) => m.status === 'delivered',
        ),
      'the deliveries recorded',
    );
    expect(
      await listWebhookAttempts(bed.db.pool, endpointId, { messageId: placed as string, limit: 10 }),
    ).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', statusCode: 204 })]);
  });

  it('reads only the types some endpoint subscribes to, and gives an endpoint registered inside a page the events after it', async () => {
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    // One page for the relay: an event of a type nobody subscribes to yet, the endpoint that subscribes to it, and
    // another of that type. The first is past (the endpoint did not exist at that point of the log); the last is its.
    await order(tenantId, ['StockCountPosted']);
    await register(tenantId, target.url, secret, ['StockCountPosted']);
    const [after] = await order(tenantId, ['StockCountPosted']);
    await relay();
    await waitFor(() => target.applied.length === 1, 'the delivery');
    expect(target.applied).toEqual([after]);
  });

  it('moves its checkpoint past a page with no event any endpoint subscribes to, and marks the log there', async () => {
    const marks = async () =>
      Number(
        (await bed.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM webhook_log_marks')).rows[0]?.n,
      );
    const marksBefore = await marks();
    await relay();
    const { position: end } = await bed.store.appendToStream(
      orderStream(asTenantId(freshTenantId()), asOrderId(randomUUID())),
      [{ id: randomUUID(), type: 'SaleRecorded', data: { at: new Date().toISOString() } }],
      { expectedRevision: 'no_stream' },
    );
    if (end === undefined) throw new Error('the PostgreSQL store says where an append lands');
    await waitFor(async () => {
      const { rows } = await bed.db.pool.query<{ position: string | null }>(
        'SELECT position FROM webhook_relay_checkpoints',
      );
      const stored = rows[0]?.position;
      const reached = stored == null ? undefined : parsePosition(stored);
      return reached !== undefined && comparePositions(reached, end) >= 0;
    }, 'the checkpoint at the end of the log');
    // A replay of a time range starts at the mark before it, whether or not an endpoint subscribed back then.
    expect(await marks()).toBeGreaterThan(marksBefore);
  });

  it('keeps the endpoint’s secret sealed in its table; a secret it cannot unseal fails each attempt as secret-unavailable', async () => {
    await relay();
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const endpointId = await register(tenantId, target.url, secret);
    const lostKey = createSecretsKeyring(parseSecretsKeys(generateSecretsKey()));
    const unreadable = await registerEndpointInLog(bed.store, lostKey, {
      tenantId,
      url: target.url,
      secret,
      eventTypes: ['OrderPlaced'],
    });
    const [placed] = await order(tenantId, ['OrderPlaced']);
    await waitFor(() => target.applied.length === 1, 'the delivery signed with the unsealed secret');
    expect(target.applied).toEqual([placed]);
    await waitFor(
      async () => (await listWebhookAttempts(bed.db.pool, unreadable, { limit: 1 })).length === 1,
      'the refused attempt',
    );
    expect(await listWebhookAttempts(bed.db.pool, unreadable, { limit: 1 })).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        statusCode: null,
        error: 'secret-unavailable',
      }),
    ]);
    const rows = await bed.db.pool.query<{ secret: string }>(
      'SELECT secret FROM webhook_endpoints WHERE endpoint_id = ANY($1)',
      [[endpointId, unreadable]],
    );
    expect(rows.rows.map((row) => row.secret)).toEqual([
      expect.stringMatching(/^sealed:v1:/),
      expect.stringMatching(/^sealed:v1:/),
    ]);
    expect(target.requests).toHaveLength(1);
    // Its retries would go on under the next tests' relays.
    await bed.store.appendToStream(
      webhookEndpointStream(asTenantId(tenantId), asWebhookEndpointId(unreadable)),
      [
        {
          id: randomUUID(),
          type: 'WebhookEndpointDeleted',
          data: { tenantId, endpointId: unreadable, deletedAt: new Date().toISOString() },
        },
      ],
      { expectedRevision: 0n },
    );
  });

  it('delivers again a message whose receiver answered 2xx when the relay died before recording it; the inbox applies it once', async () => {
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    let crashes = 0;
    // Only this tenant's delivery crashes: an earlier test's endpoint may still be delivered through this relay.
    await relay({
      faults: {
        afterReceiverAnswered: (message) => {
          if (message.stream.includes(tenantId) && crashes++ === 0)
            throw new Error('the relay process dies here');
        },
      },
    });
    const endpointId = await register(tenantId, target.url, secret);
    const [placed] = await order(tenantId);
    await waitFor(
      async () =>
        (await listWebhookMessages(bed.db.pool, endpointId, { limit: 1 }))[0]?.status === 'delivered',
      'the redelivery recorded',
    );
    expect(target.requests.map((request) => request.id)).toEqual([placed, placed]);
    expect(target.applied).toEqual([placed]);
    expect(await listWebhookAttempts(bed.db.pool, endpointId, { limit: 10 })).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'delivered' }),
    ]);
  });

  it('delivers everything later, each stream in log order, after the endpoint was down for a while', async () => {
    await relay();
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    target.setDown(true);
    const endpointId = await register(tenantId, target.url, secret, [
      'OrderPlaced',
      'OrderServed',
      'OrderCompleted',
    ]);
    const streams = await Promise.all(
      Array.from({ length: 6 }, () => order(tenantId, ['OrderPlaced', 'OrderServed', 'OrderCompleted'])),
    );
    await waitFor(() => target.requests.length >= 12, 'failed attempts while down');
    const metrics = await webhookDeliveryMetrics(bed.db.pool);
    expect(metrics.retryBacklog).toBeGreaterThan(0);
    expect(metrics.oldestUndeliveredSeconds).toBeGreaterThan(0);
    target.setDown(false);
    await waitFor(() => target.applied.length === 18, 'every message after the outage');
    for (const stream of streams) {
      expect(target.applied.filter((id) => stream.includes(id))).toEqual(stream);
    }
    const attempts = await listWebhookAttempts(bed.db.pool, endpointId, { limit: 500 });
    expect(attempts.some((attempt) => attempt.outcome === 'failed' && attempt.statusCode === 503)).toBe(true);
    expect(attempts.find((attempt) => attempt.outcome === 'failed')?.nextAttemptAt).not.toBeNull();
  });

  it('dead-letters a message after the last attempt and disables an endpoint failing for too long, saying why', async () => {
    const impatient = await relay({ retryLadderMs: [20, 20], disableAfterMs: 0 });
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    target.setDown(true);
    const endpointId = await register(tenantId, target.url, secret);
    await order(tenantId);
    const stream = webhookEndpointStream(asTenantId(tenantId), asWebhookEndpointId(endpointId));
    await waitFor(async () => (await bed.store.readStream(stream)).length === 2, 'the endpoint disabled');
    const [, disabled] = await bed.store.readStream(stream);
    expect(disabled).toMatchObject({
      type: 'WebhookEndpointDisabled',
      data: { reason: expect.stringMatching(/^no delivery succeeded since/) },
    });

    await impatient.stop();
    await relay({ retryLadderMs: [20, 20] });
    const other = await register(tenantId, target.url, secret);
    await order(tenantId);
    await waitFor(
      async () => (await listWebhookMessages(bed.db.pool, other, { status: 'dead', limit: 1 })).length === 1,
      'a dead letter',
    );
    expect(
      (await listWebhookAttempts(bed.db.pool, other, { limit: 10 })).map((attempt) => attempt.outcome),
    ).toEqual(['dead', 'failed', 'failed']);
  });

  it('lets a standby take over when the leader’s lease connection dies', async () => {
    const leader = await relay();
    await waitFor(() => leader.state() === 'leading', 'a leader');
    const standby = await relay();
    await waitFor(() => standby.state() === 'standby', 'a standby');
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    await register(tenantId, target.url, secret);
    await order(tenantId);
    await waitFor(() => target.applied.length === 1, 'a delivery by the leader');

    const killed = await bed.db.pool.query(
      `SELECT pg_terminate_backend(a.pid) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1`,
      [relayLeaseName],
    );
    expect(killed.rowCount).toBe(1);
    await waitFor(() => standby.state() === 'leading', 'the standby leading');
    const [later] = await order(tenantId);
    await waitFor(() => target.applied.includes(later as string), 'a delivery after the takeover');
    expect(target.applied).toHaveLength(2);
  });

  it('connects only to the address it checked, whatever the host resolves to afterwards (DNS rebinding)', async () => {
    const asked: string[] = [];
    // The check hears the receiver's address; any later resolution would hear a private one.
    await relay({
      resolveHost: async (host) => {
        asked.push(host);
        return asked.length === 1 ? ['127.0.0.1'] : ['10.255.255.1'];
      },
    });
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const rebinding = new URL(target.url);
    rebinding.hostname = 'rebinding.once.test';
    const endpointId = await register(tenantId, rebinding.href, secret);
    const [placed] = await order(tenantId);
    await waitFor(
      async () =>
        (await listWebhookMessages(bed.db.pool, endpointId, { limit: 1 }))[0]?.status === 'delivered',
      'the delivery to the checked address',
    );
    expect(target.applied).toEqual([placed]);
    expect(asked).toEqual(['rebinding.once.test']);
  });

  it('pins each connection to the checked addresses: another host name is refused, not resolved', async () => {
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const checked = new URL(target.url);
    checked.hostname = 'checked.once.test';
    const agent = createPinnedAgent(checked, ['127.0.0.1']);
    bed.afterTest(() => agent.close());
    const answered = await agent.request({
      origin: checked.origin,
      path: checked.pathname,
      method: 'POST',
      body: '{}',
    });
    await answered.body.dump();
    // The receiver refuses an unsigned body; what matters is that the pinned address answered.
    expect(answered.statusCode).toBe(401);
    const other = new URL(checked);
    other.hostname = 'other.once.test';
    await expect(
      agent.request({ origin: other.origin, path: other.pathname, method: 'POST', body: '{}' }),
    ).rejects.toBeInstanceOf(UncheckedHostError);
  });

  it('tells the tenant coarse error classes, never an address, a port or an errno', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await relay({
      retryLadderMs: [20],
      resolveHost: async (host) => (host === 'metadata.once.test' ? ['169.254.169.254'] : ['127.0.0.1']),
    });
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const down = await receiver(secret);
    down.setDown(true);
    const endpoints = await Promise.all(
      [`http://127.0.0.1:${String(port)}/webhooks`, 'http://metadata.once.test/latest', down.url].map((url) =>
        register(tenantId, url, secret),
      ),
    );
    await order(tenantId);
    const errorsOf = async (endpointId: string) =>
      (await listWebhookAttempts(bed.db.pool, endpointId, { limit: 10 })).map((attempt) => attempt.error);
    await waitFor(
      async () => (await Promise.all(endpoints.map(errorsOf))).every((errors) => errors.length === 2),
      'two attempts per endpoint',
    );
    const [refused, blocked, failing] = await Promise.all(endpoints.map(errorsOf));
    expect(refused).toEqual(['connection-refused', 'connection-refused']);
    expect(blocked).toEqual(['blocked-address', 'blocked-address']);
    expect(failing).toEqual(['http-5xx', 'http-5xx']);
    expect(down.requests.length).toBeGreaterThanOrEqual(2);
  });
});
