import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { asOrderId, asTenantId, orderStream } from '@once/domain';
import type { EventStore } from '@once/event-store';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createTestDatabase } from '@once/testing';
import type { TestDatabase } from '@once/testing';
import { createSecretsKeyring, generateSecretsKey, parseSecretsKeys } from '@once/webhooks';
import { migrateWebhookInbox } from '@once/webhooks/postgres';
import { startWebhookRelay } from '../relay/start-webhook-relay.js';
import type { WebhookRelay, WebhookRelayOptions } from '../relay/index.js';
import { registerEndpointInLog } from './register-endpoint.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import type { WebhookReceiver } from './webhook-receiver.js';

/**
 * What a relay test works with: a PostgreSQL database with the inbox's tables, its event store, and relays, receivers,
 * endpoints and orders made on them. Registers the suite's hooks; whatever a test starts is closed after it.
 *
 * @example
 * const bed = useRelayTestBed();
 * it('delivers', async () => {
 *   await bed.relay();
 *   const target = await bed.receiver(secret);
 *   await bed.register(tenantId, target.url, secret);
 *   await bed.order(tenantId);
 * });
 */
export const useRelayTestBed = () => {
  let database: TestDatabase | undefined;
  let eventStore: EventStore | undefined;
  const keyring = createSecretsKeyring(parseSecretsKeys(generateSecretsKey()));
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ poolSize: 30 });
    eventStore = createPostgresEventStore(database.pool);
    await migrateWebhookInbox(database.pool);
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    await eventStore?.close();
    await database?.release();
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the relay test bed's ${what} is used before the suite started`);
    return value;
  };

  const bed = {
    get db(): TestDatabase {
      return started(database, 'database');
    },
    get store(): EventStore {
      return started(eventStore, 'event store');
    },
    keyring,
    /** Closes `close` after the test; what was registered last closes first. */
    afterTest: (close: () => Promise<void>): void => {
      closers.push(close);
    },
    /** A relay that polls every 20 ms and retries within a second, stopped after the test. */
    relay: async (overrides: Partial<WebhookRelayOptions> = {}): Promise<WebhookRelay> => {
      const relay = await startWebhookRelay({
        pool: bed.db.pool,
        store: bed.store,
        secrets: keyring,
        urlPolicy: { allowHttp: true },
        pollIntervalMs: 20,
        leaseRetryMs: 200,
        retryLadderMs: [50, 100, 100, 100, 100, 100, 100, 100],
        ...overrides,
      });
      closers.push(() => relay.stop());
      return relay;
    },
    /** A receiver that verifies with `secret` and applies through the inbox as `consumer`, closed after the test. */
    receiver: async (secret: string, consumer = randomUUID()): Promise<WebhookReceiver> => {
      const receiver = await startWebhookReceiver({
        secrets: () => [secret],
        inbox: { pool: bed.db.pool, consumer },
      });
      closers.push(() => receiver.close());
      return receiver;
    },
    /** Registers an endpoint in the log, as the api's command does. */
    register: (tenantId: string, url: string, secret: string, eventTypes = ['OrderPlaced', 'OrderServed']) =>
      registerEndpointInLog(bed.store, keyring, { tenantId, url, secret, eventTypes }),
    /** Appends an order's events; returns their ids in log order. */
    order: async (tenantId: string, types: readonly string[] = ['OrderPlaced']): Promise<string[]> => {
      const orderId = randomUUID();
      const events = types.map((type) => ({
        id: randomUUID(),
        type,
        data: { tenantId, orderId, at: new Date().toISOString() },
      }));
      await bed.store.appendToStream(orderStream(asTenantId(tenantId), asOrderId(orderId)), events, {
        expectedRevision: 'no_stream',
      });
      return events.map((event) => event.id);
    },
  };
  return bed;
};

export type RelayTestBed = ReturnType<typeof useRelayTestBed>;
