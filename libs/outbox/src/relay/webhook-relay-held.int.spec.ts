import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatPosition } from '@once/event-store';
import { asTenantId, asWebhookEndpointId, webhookEndpointStream } from '@once/domain';
import { freshTenantId, waitFor } from '@once/testing';
import { generateWebhookSecret } from '@once/webhooks';
import {
  deleteWebhookMessage,
  listWebhookAttempts,
  listWebhookMessages,
  recordLogMark,
  replayWebhookRange,
  webhookDeliveryMetrics,
} from '../delivery-state/index.js';
import { useRelayTestBed } from '../testing/index.js';

const day = 86_400_000;
const bed = useRelayTestBed();
const { relay, receiver, register } = bed;

/** Appends an order's events (placed and served unless told); returns their ids in log order. */
const order = (tenantId: string, types: readonly string[] = ['OrderPlaced', 'OrderServed']) =>
  bed.order(tenantId, types);

/** Enables or disables an endpoint in the log, as the api's commands do. */
const setEnabled = async (tenantId: string, endpointId: string, enabled: boolean): Promise<void> => {
  const stream = webhookEndpointStream(asTenantId(tenantId), asWebhookEndpointId(endpointId));
  const recorded = await bed.store.readStream(stream);
  const at = new Date().toISOString();
  await bed.store.appendToStream(
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
    await bed.db.pool.query<{ status: string }>(
      'SELECT status FROM webhook_endpoints WHERE endpoint_id = $1',
      [endpointId],
    )
  ).rows[0]?.status;

const statuses = async (endpointId: string): Promise<Record<string, string>> =>
  Object.fromEntries(
    (await listWebhookMessages(bed.db.pool, endpointId, { limit: 500 })).map((m) => [m.messageId, m.status]),
  );

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
    await waitFor(
      async () =>
        (
          await bed.db.pool.query(
            'SELECT 1 FROM webhook_endpoints WHERE endpoint_id = $1 AND failing_since IS NOT NULL',
            [endpointId],
          )
        ).rowCount === 1,
      'the endpoint failing',
    );
    clock += 6 * day;
    await waitFor(async () => (await endpointStatus(endpointId)) === 'disabled', 'the endpoint disabled');
    const [disabled] = (
      await bed.store.readStream(webhookEndpointStream(asTenantId(tenantId), asWebhookEndpointId(endpointId)))
    ).slice(-1);
    expect(disabled?.type).toBe('WebhookEndpointDisabled');

    const during = await Promise.all([order(tenantId), order(tenantId)]);
    await waitFor(
      async () => Object.values(await statuses(endpointId)).filter((s) => s === 'held').length === 4,
      'the events after the disable held',
    );
    expect((await webhookDeliveryMetrics(bed.db.pool)).held).toBeGreaterThanOrEqual(4);

    target.setDown(false);
    await setEnabled(tenantId, endpointId, true);
    await waitFor(() => target.applied.length === 6, 'every event delivered after the endpoint came back');
    for (const stream of [before, ...during]) {
      expect(target.applied.filter((id) => stream.includes(id))).toEqual(stream);
    }
    await waitFor(
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
    await waitFor(() => target.applied.length === 1, 'a delivery while enabled');
    await waitFor(async () => (await statuses(endpointId))[first ?? ''] === 'delivered', 'it recorded');
    await setEnabled(tenantId, endpointId, false);
    await waitFor(async () => (await endpointStatus(endpointId)) === 'disabled', 'the endpoint disabled');
    const [held] = await order(tenantId, ['OrderPlaced']);
    await waitFor(async () => (await statuses(endpointId))[held ?? ''] === 'held', 'a held message');
    expect(await deleteWebhookMessage(bed.db.pool, endpointId, first ?? '')).toBe('not-dead-or-held');
    await setEnabled(tenantId, endpointId, true);
    await waitFor(() => target.applied.includes(held ?? ''), 'the held message delivered');
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
    await waitFor(() => target.applied.length === 1, 'the event after registration');
    expect(await listWebhookMessages(bed.db.pool, endpointId, { limit: 10 })).toHaveLength(1);

    const replay = await replayWebhookRange({ pool: bed.db.pool, store: bed.store }, endpointId, {
      from,
      to: new Date(Date.now() + 1_000),
    });
    expect(replay).toEqual({ outcome: 'replayed', messages: 3 });
    await waitFor(() => target.applied.length === 3, 'the replayed events');
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
    await waitFor(() => target.applied.length === 6, 'six deliveries');
    const range = { from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 1_000) };
    expect(
      await replayWebhookRange({ pool: bed.db.pool, store: bed.store }, endpointId, range, { maxEvents: 5 }),
    ).toEqual({
      outcome: 'too-many-events',
      maxEvents: 5,
    });

    // A mark at the head of the log, old enough for the next range: the replay reads only what follows it.
    const head = await bed.store.readAll({ maxCount: 100_000 });
    if (!head.checkpoint) throw new Error('the log is empty');
    await recordLogMark(bed.db.pool, formatPosition(head.checkpoint), new Date(Date.now() - 10 * 60_000));
    const after = await order(tenantId);
    await waitFor(() => after.every((id) => target.applied.includes(id)), 'the pair delivered');
    const recent = { from: new Date(Date.now() - 5_000), to: new Date(Date.now() + 1_000) };
    expect(
      await replayWebhookRange({ pool: bed.db.pool, store: bed.store }, endpointId, recent, { maxEvents: 2 }),
    ).toEqual({
      outcome: 'replayed',
      messages: 2,
    });
    await waitFor(
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
    await waitFor(async () => (await statuses(endpointId))[delivered ?? ''] === 'delivered', 'a delivery');
    target.setDown(true);
    const [dead] = await order(tenantId, ['OrderPlaced']);
    await waitFor(async () => (await statuses(endpointId))[dead ?? ''] === 'dead', 'a dead letter');
    await setEnabled(tenantId, endpointId, false);
    await waitFor(async () => (await endpointStatus(endpointId)) === 'disabled', 'the endpoint disabled');
    const [held] = await order(tenantId, ['OrderPlaced']);
    await waitFor(async () => (await statuses(endpointId))[held ?? ''] === 'held', 'a held message');
    const countsBefore = (await webhookDeliveryMetrics(bed.db.pool)).attemptsByOutcome;

    clock += 31 * day;
    await waitFor(
      async () => (await statuses(endpointId))[delivered ?? ''] === undefined,
      'the delivered message pruned',
    );
    expect(await statuses(endpointId)).toEqual({ [dead ?? '']: 'dead', [held ?? '']: 'held' });
    expect(
      await listWebhookAttempts(bed.db.pool, endpointId, { messageId: delivered ?? '', limit: 10 }),
    ).toEqual([]);
    expect(
      await listWebhookAttempts(bed.db.pool, endpointId, { messageId: dead ?? '', limit: 10 }),
    ).toHaveLength(2);
    const countsAfter = (await webhookDeliveryMetrics(bed.db.pool)).attemptsByOutcome;
    expect(countsAfter.delivered).toBeGreaterThanOrEqual(countsBefore.delivered);

    expect(await deleteWebhookMessage(bed.db.pool, endpointId, dead ?? '')).toBe('deleted');
    expect(await deleteWebhookMessage(bed.db.pool, endpointId, held ?? '')).toBe('deleted');
    expect(await deleteWebhookMessage(bed.db.pool, endpointId, held ?? '')).toBe('not-found');
    expect(await statuses(endpointId)).toEqual({});
    expect((await webhookDeliveryMetrics(bed.db.pool)).attemptsByOutcome.dead).toBeGreaterThanOrEqual(
      countsBefore.dead,
    );
  });
});
