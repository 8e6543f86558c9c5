import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@once/event-store/postgres';
import type { EventStore } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import { asOrderId, asTenantId, asWebhookEndpointId, orderStream, webhookEndpointStream } from '@once/domain';
import { createTestDatabase, freshTenantId } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import {
  createSecretsKeyring,
  generateSecretsKey,
  generateWebhookSecret,
  migrateWebhookInbox,
  parseSecretsKeys,
} from '@once/webhooks';
import {
  deleteWebhookMessage,
  listWebhookAttempts,
  listWebhookMessages,
  recordLogMark,
  replayWebhookRange,
  webhookDeliveryMetrics,
} from '../delivery-state/index.js';
import { registerEndpointInLog, startWebhookReceiver } from '../testing/index.js';
import type { WebhookReceiver } from '../testing/index.js';
import { startWebhookRelay } from './start-webhook-relay.js';
import type { WebhookRelay, WebhookRelayOptions } from './index.js';

let db: TestDatabase;
let store: EventStore;
const keyring = createSecretsKeyring(parseSecretsKeys(generateSecretsKey()));
const closers: (() => Promise<void>)[] = [];
const day = 86_400_000;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 30 });
  store = createPostgresEventStore(db.pool);
  await migrateWebhookInbox(db.pool);
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

afterAll(async () => {
  await store?.close();
  await db?.release();
});

const relay = async (overrides: Partial<WebhookRelayOptions> = {}): Promise<WebhookRelay> => {
  const started = await startWebhookRelay({
    pool: db.pool,
    store,
    secrets: keyring,
    urlPolicy: { allowHttp: true },
    pollIntervalMs: 20,
    leaseRetryMs: 200,
    retryLadderMs: [50, 100, 100, 100, 100, 100, 100, 100],
    ...overrides,
  });
  closers.push(() => started.stop());
  return started;
};

const receiver = async (secret: string): Promise<WebhookReceiver> => {
  const started = await startWebhookReceiver({
    secrets: () => [secret],
    inbox: { pool: db.pool, consumer: randomUUID() },
  });
  closers.push(() => started.close());
  return started;
};

const register = (tenantId: string, url: string, secret: string) =>
  registerEndpointInLog(store, keyring, {
    tenantId,
    url,
    secret,
    eventTypes: ['OrderPlaced', 'OrderServed'],
  });

/** Appends an order's events; returns their ids in log order. */
const order = async (
  tenantId: string,
  types: readonly string[] = ['OrderPlaced', 'OrderServed'],
): Promise<string[]> => {
  const orderId = randomUUID();
  const events = types.map((type) => ({ id: randomUUID(), type, data: { tenantId, orderId } }));
  await store.appendToStream(orderStream(asTenantId(tenantId), asOrderId(orderId)), events, {
    expectedRevision: 'no_stream',
  });
  return events.map((event) => event.id);
};

/** Enables or disables an endpoint in the log, as the api's commands do. */
const setEnabled = async (tenantId: string, endpointId: string, enabled: boolean): Promise<void> => {
  const stream = webhookEndpointStream(asTenantId(tenantId), asWebhookEndpointId(endpointId));
  const recorded = await store.readStream(stream);
  const at = new Date().toISOString();
  await store.appendToStream(
    stream,
    [
      enabled
        ? { id: randomUUID(), type: 'WebhookEndpointEnabled', data: { tenantId, endpointId, enabledAt: at } }
        : {
            id: randomUUID(),
            type: 'WebhookEndpointDisabled',
            data: { tenantId, endpointId, reason: 'disabled by the tenant', disabledAt: at },
          },
    ],
    { expectedRevision: recorded.at(-1)?.revision ?? 'no_stream' },
  );
};

const endpointStatus = async (endpointId: string): Promise<string | undefined> =>
  (
    await db.pool.query<{ status: string }>('SELECT status FROM webhook_endpoints WHERE endpoint_id = $1', [
      endpointId,
    ])
  ).rows[0]?.status;

const statuses = async (endpointId: string): Promise<Record<string, string>> =>
  Object.fromEntries(
    (await listWebhookMessages(db.pool, endpointId, { limit: 500 })).map((m) => [m.messageId, m.status]),
  );

const eventually = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('held webhook messages', () => {
  it('holds what a receiver down past the disable threshold missed, and delivers all of it once it is enabled again', async () => {
    let clock = Date.now();
    await relay({ now: () => clock, disableAfterMs: 5 * day, retryLadderMs: Array<number>(400).fill(20) });
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    target.setDown(true);
    const endpointId = await register(tenantId, target.url, secret);
    const before = await order(tenantId);
    await eventually(
      async () =>
        (
          await db.pool.query(
            'SELECT 1 FROM webhook_endpoints WHERE endpoint_id = $1 AND failing_since IS NOT NULL',
            [endpointId],
          )
        ).rowCount === 1,
      'the endpoint failing',
    );
    clock += 6 * day;
    await eventually(async () => (await endpointStatus(endpointId)) === 'disabled', 'the endpoint disabled');
    const [disabled] = (
      await store.readStream(webhookEndpointStream(asTenantId(tenantId), asWebhookEndpointId(endpointId)))
    ).slice(-1);
    expect(disabled?.type).toBe('WebhookEndpointDisabled');

    const during = await Promise.all([order(tenantId), order(tenantId)]);
    await eventually(
      async () => Object.values(await statuses(endpointId)).filter((s) => s === 'held').length === 4,
      'the events after the disable held',
    );
    expect((await webhookDeliveryMetrics(db.pool)).held).toBeGreaterThanOrEqual(4);

    target.setDown(false);
    await setEnabled(tenantId, endpointId, true);
    await eventually(() => target.applied.length === 6, 'every event delivered after the endpoint came back');
    for (const stream of [before, ...during]) {
      expect(target.applied.filter((id) => stream.includes(id))).toEqual(stream);
    }
    await eventually(
      async () => Object.values(await statuses(endpointId)).every((s) => s === 'delivered'),
      'every message recorded as delivered',
    );
  });

  it('holds the messages of an endpoint the tenant disabled until it is enabled; a delivered one cannot be deleted', async () => {
    await relay();
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const endpointId = await register(tenantId, target.url, secret);
    const [first] = await order(tenantId, ['OrderPlaced']);
    await eventually(() => target.applied.length === 1, 'a delivery while enabled');
    await eventually(async () => (await statuses(endpointId))[first ?? ''] === 'delivered', 'it recorded');
    await setEnabled(tenantId, endpointId, false);
    await eventually(async () => (await endpointStatus(endpointId)) === 'disabled', 'the endpoint disabled');
    const [held] = await order(tenantId, ['OrderPlaced']);
    await eventually(async () => (await statuses(endpointId))[held ?? ''] === 'held', 'a held message');
    expect(await deleteWebhookMessage(db.pool, endpointId, first ?? '')).toBe('not-dead-or-held');
    await setEnabled(tenantId, endpointId, true);
    await eventually(() => target.applied.includes(held ?? ''), 'the held message delivered');
    expect(target.applied).toEqual([first, held]);
  });
});

describe('replaying a range of the log', () => {
  it('delivers events that were never enqueued for the endpoint (appended before it existed), in log order', async () => {
    await relay();
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const from = new Date(Date.now() - 1_000);
    const earlier = await order(tenantId, ['OrderPlaced', 'OrderServed', 'OrderCompleted']);
    await order(freshTenantId());
    const endpointId = await register(tenantId, target.url, secret);
    const later = await order(tenantId, ['OrderPlaced']);
    await eventually(() => target.applied.length === 1, 'the event after registration');
    expect(await listWebhookMessages(db.pool, endpointId, { limit: 10 })).toHaveLength(1);

    const replay = await replayWebhookRange({ pool: db.pool, store }, endpointId, {
      from,
      to: new Date(Date.now() + 1_000),
    });
    expect(replay).toEqual({ outcome: 'replayed', messages: 3 });
    await eventually(() => target.applied.length === 3, 'the replayed events');
    expect(target.applied).toEqual([...later, earlier[0], earlier[1]]);
    expect(target.requests.map((request) => request.id).filter((id) => id === later[0])).toHaveLength(2);
  });

  it('refuses a range holding more log events than the bound, and starts reading at the mark before the range', async () => {
    await relay();
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const endpointId = await register(tenantId, target.url, secret);
    await Promise.all([order(tenantId), order(tenantId), order(tenantId)]);
    await eventually(() => target.applied.length === 6, 'six deliveries');
    const range = { from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 1_000) };
    expect(await replayWebhookRange({ pool: db.pool, store }, endpointId, range, { maxEvents: 5 })).toEqual({
      outcome: 'too-many-events',
      maxEvents: 5,
    });

    // A mark at the head of the log, old enough for the next range: the replay reads only what follows it.
    const head = await store.readAll({ maxCount: 100_000 });
    if (!head.checkpoint) throw new Error('the log is empty');
    await recordLogMark(db.pool, formatPosition(head.checkpoint), new Date(Date.now() - 10 * 60_000));
    const after = await order(tenantId);
    await eventually(() => after.every((id) => target.applied.includes(id)), 'the pair delivered');
    const recent = { from: new Date(Date.now() - 5_000), to: new Date(Date.now() + 1_000) };
    expect(await replayWebhookRange({ pool: db.pool, store }, endpointId, recent, { maxEvents: 2 })).toEqual({
      outcome: 'replayed',
      messages: 2,
    });
    await eventually(
      () => target.requests.filter((request) => after.includes(request.id)).length === 4,
      'the replayed pair sent twice in all',
    );
  });
});

describe('pruning', () => {
  it('deletes delivered messages and their attempts past the retention, keeps dead and held ones, and never lowers the attempt counters', async () => {
    let clock = Date.now();
    await relay({ now: () => clock, retryLadderMs: [20], retentionMs: 30 * day, pruneIntervalMs: 50 });
    const tenantId = freshTenantId();
    const secret = generateWebhookSecret();
    const target = await receiver(secret);
    const endpointId = await register(tenantId, target.url, secret);
    const [delivered] = await order(tenantId, ['OrderPlaced']);
    await eventually(async () => (await statuses(endpointId))[delivered ?? ''] === 'delivered', 'a delivery');
    target.setDown(true);
    const [dead] = await order(tenantId, ['OrderPlaced']);
    await eventually(async () => (await statuses(endpointId))[dead ?? ''] === 'dead', 'a dead letter');
    await setEnabled(tenantId, endpointId, false);
    await eventually(async () => (await endpointStatus(endpointId)) === 'disabled', 'the endpoint disabled');
    const [held] = await order(tenantId, ['OrderPlaced']);
    await eventually(async () => (await statuses(endpointId))[held ?? ''] === 'held', 'a held message');
    const countsBefore = (await webhookDeliveryMetrics(db.pool)).attemptsByOutcome;

    clock += 31 * day;
    await eventually(
      async () => (await statuses(endpointId))[delivered ?? ''] === undefined,
      'the delivered message pruned',
    );
    expect(await statuses(endpointId)).toEqual({ [dead ?? '']: 'dead', [held ?? '']: 'held' });
    expect(await listWebhookAttempts(db.pool, endpointId, { messageId: delivered ?? '', limit: 10 })).toEqual(
      [],
    );
    expect(await listWebhookAttempts(db.pool, endpointId, { messageId: dead ?? '', limit: 10 })).toHaveLength(
      2,
    );
    const countsAfter = (await webhookDeliveryMetrics(db.pool)).attemptsByOutcome;
    expect(countsAfter.delivered).toBeGreaterThanOrEqual(countsBefore.delivered);

    expect(await deleteWebhookMessage(db.pool, endpointId, dead ?? '')).toBe('deleted');
    expect(await deleteWebhookMessage(db.pool, endpointId, held ?? '')).toBe('deleted');
    expect(await deleteWebhookMessage(db.pool, endpointId, held ?? '')).toBe('not-found');
    expect(await statuses(endpointId)).toEqual({});
    expect((await webhookDeliveryMetrics(db.pool)).attemptsByOutcome.dead).toBeGreaterThanOrEqual(
      countsBefore.dead,
    );
  });
});
