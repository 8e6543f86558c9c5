import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolClient } from 'pg';
import type { GlobalPosition, ReadAllBatch, RecordedEvent } from '@once/event-store';
import { formatPosition, parsePosition } from '@once/event-store';
import { webhookEndpointEventTypes, webhookEventTypes } from '@once/domain/webhook-endpoints';
import { logMarkIntervalMs, recordLogMark, thinLogMarks } from '../delivery-state/log-marks.js';
import { pruneDeliveredWebhookMessages } from '../delivery-state/webhook-message-removal.js';
import { migrateOutbox } from '../schema/index.js';
import { createDeliveryRecorder } from './delivery-recorder.js';
import { disableEndpoint } from './disable-endpoint.js';
import { dispatchBatch, relayCheckpointName, subscribedEventTypes } from './dispatch-batch.js';
import { startEndpointWorker } from './endpoint-worker.js';
import type { EndpointWorker, WorkerContext } from './endpoint-worker.js';
import { defaultRetryLadderMs } from './retry-ladder.js';
import { silentRelayLogger } from './relay-settings.js';
import type { WebhookRelayOptions } from './relay-settings.js';

export type RelayState = 'starting' | 'standby' | 'leading' | 'stopped';

/** A running relay: the leader, or a standby ready to take over. */
export interface WebhookRelay {
  state(): RelayState;
  /** Stops after the deliveries in flight and gives the lease back. */
  stop(): Promise<void>;
}

/** The lease's advisory lock key (hashed by PostgreSQL) and the `application_name` of its connection. */
export const relayLeaseName = 'once-webhook-relay';

const schedulePollMs = 1_000;
/** How long delivered messages are kept by default: 30 days. */
export const defaultWebhookRetentionMs = 30 * 86_400_000;
const endpointEventTypes: ReadonlySet<string> = new Set(webhookEndpointEventTypes);
const reloadEveryRounds = 10;

/** What the relay reads: every endpoint event, and the domain events of the types some endpoint subscribes to. */
const relayFilter = (subscribed: ReadonlySet<string>) => ({
  eventTypes: [...webhookEndpointEventTypes, ...webhookEventTypes.filter((type) => subscribed.has(type))],
});

/**
 * The part of a page the relay applies before it looks at its endpoints again: up to and including the page's first
 * endpoint event (an endpoint registered there may subscribe to types the page was read without), or all of it.
 */
const throughFirstEndpointEvent = (
  batch: ReadAllBatch,
): {
  readonly events: readonly RecordedEvent[];
  readonly checkpoint: GlobalPosition | undefined;
  readonly endpointsChanged: boolean;
} => {
  const index = batch.events.findIndex((event) => endpointEventTypes.has(event.type));
  if (index === -1) return { events: batch.events, checkpoint: batch.checkpoint, endpointsChanged: false };
  const events = batch.events.slice(0, index + 1);
  return { events, checkpoint: events[index]?.position, endpointsChanged: true };
};

/**
 * Starts the webhook relay: the outbox of the log. One relay leads at a time, holding a session advisory lock on a
 * connection of its own (PostgreSQL frees it when that connection dies); the others wait as standbys and take over
 * within `leaseRetryMs`. The leader
 * - reads the global log after its checkpoint and, per page in one transaction, keeps the endpoints table as the log
 *   says and enqueues each subscribed domain event for its tenant's endpoints (`webhook-id` = the event id);
 * - runs one worker per endpoint with pending messages (see `startEndpointWorker` for order, concurrency, retries,
 *   dead letters and disabling);
 * - deletes delivered messages and their attempts `retentionMs` after delivery, in batches (dead and held ones stay
 *   until delivered or deleted), and marks the log by time once a minute (where a replay of a time range starts);
 * - checks its lease connection every `leaseRetryMs`, and steps down (stopping its deliveries) when it is gone.
 * Delivery is at least once: a relay that dies after a receiver answered and before the attempt was recorded
 * delivers that message again, with the same `webhook-id`.
 *
 * @example
 * const relay = await startWebhookRelay({ pool, store, secrets: keyring, urlPolicy: strictWebhookUrlPolicy });
 * await relay.stop();
 */
export const startWebhookRelay = async (options: WebhookRelayOptions): Promise<WebhookRelay> => {
  const { pool, store } = options;
  const logger = options.logger ?? silentRelayLogger;
  const leaseRetryMs = options.leaseRetryMs ?? 1_000;
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const batchSize = options.batchSize ?? 1_000;
  const settings: WorkerContext['settings'] = {
    urlPolicy: options.urlPolicy,
    maxInFlightPerEndpoint: options.maxInFlightPerEndpoint ?? 16,
    retryLadderMs: options.retryLadderMs ?? defaultRetryLadderMs,
    disableAfterMs: options.disableAfterMs ?? 5 * 24 * 3_600_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 15_000,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    pollIntervalMs,
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
  };
  const retentionMs = options.retentionMs ?? defaultWebhookRetentionMs;
  // At least ten rounds per retention, so what is kept past it stays a tenth of it at most.
  const pruneIntervalMs = options.pruneIntervalMs ?? Math.min(60_000, retentionMs / 10);
  const pruneBatchSize = options.pruneBatchSize ?? 1_000;
  const stopping = new AbortController();
  let state: RelayState = 'starting';
  await migrateOutbox(pool);

  /** One term as leader: ends when stopped, or throws when the lease connection or a part of the work fails. */
  const lead = async (client: PoolClient): Promise<void> => {
    const term = new AbortController();
    const endTerm = (): void => term.abort();
    stopping.signal.addEventListener('abort', endTerm, { once: true });
    const workers = new Map<string, EndpointWorker>();
    let failure: { error: unknown } | undefined;
    const fail = (error: unknown): void => {
      failure ??= { error };
      term.abort();
    };
    const context: WorkerContext = {
      pool,
      recorder: createDeliveryRecorder(pool),
      secrets: options.secrets,
      logger,
      settings,
      signal: term.signal,
      disable: (endpoint, reason) => disableEndpoint(store, endpoint, reason, new Date()),
    };
    const wake = (endpointId: string, reason: 'new' | 'reload'): void => {
      const running = workers.get(endpointId);
      if (running) return running.wake(reason);
      const worker = startEndpointWorker(context, endpointId);
      workers.set(endpointId, worker);
      worker.done.then(
        () => workers.delete(endpointId),
        (error: unknown) => {
          workers.delete(endpointId);
          fail(error);
        },
      );
    };

    const dispatch = async (): Promise<void> => {
      await client.query(
        'INSERT INTO webhook_relay_checkpoints (name, position) VALUES ($1, NULL) ON CONFLICT DO NOTHING',
        [relayCheckpointName],
      );
      const stored = await client.query<{ position: string | null }>(
        'SELECT position FROM webhook_relay_checkpoints WHERE name = $1',
        [relayCheckpointName],
      );
      let checkpointText = stored.rows[0]?.position ?? null;
      let checkpoint: GlobalPosition | undefined =
        checkpointText === null ? undefined : parsePosition(checkpointText);
      let markedAt = Number.NEGATIVE_INFINITY;
      let filter = relayFilter(await subscribedEventTypes(client));
      while (!term.signal.aborted) {
        const readAt = new Date();
        const batch = await store.readAll({
          ...(checkpoint ? { after: checkpoint } : {}),
          filter,
          maxCount: batchSize,
        });
        const page = throughFirstEndpointEvent(batch);
        const next = page.checkpoint === undefined ? null : formatPosition(page.checkpoint);
        // A page of nothing but types nobody subscribes to still moves the checkpoint, so the next read starts past it.
        if (next !== null && next !== checkpointText) {
          const touched = await dispatchBatch(client, page.events, { from: checkpointText, to: next });
          if (checkpointText !== null && Date.now() - markedAt >= logMarkIntervalMs) {
            // The time of the page's first event; for a page of nothing subscribed, when it was read: no event before
            // the mark is later than either, so a replay may start at the mark whatever endpoints exist now.
            await recordLogMark(client, checkpointText, page.events[0]?.recordedAt ?? readAt);
            markedAt = Date.now();
          }
          checkpointText = next;
          checkpoint = page.checkpoint;
          for (const event of page.events) {
            if (endpointEventTypes.has(event.type))
              wake((event.data as { endpointId: string }).endpointId, 'reload');
          }
          for (const endpointId of touched) wake(endpointId, 'new');
          if (page.endpointsChanged) filter = relayFilter(await subscribedEventTypes(client));
        }
        if (batch.caughtUp)
          await sleep(pollIntervalMs, undefined, { signal: term.signal }).catch(() => undefined);
      }
    };

    const schedule = async (): Promise<void> => {
      for (let round = 0; !term.signal.aborted; round++) {
        const due = await pool.query<{ endpoint_id: string }>(
          `SELECT DISTINCT m.endpoint_id FROM webhook_messages m
             JOIN webhook_endpoints e ON e.endpoint_id = m.endpoint_id AND e.status = 'enabled'
            WHERE m.status = 'pending' AND m.next_attempt_at <= now()`,
        );
        // A worker waiting for a retry's time does not know of a redelivery or a replay: it reads its messages again.
        for (const { endpoint_id: endpointId } of due.rows) {
          const worker = workers.get(endpointId);
          if (!worker || worker.idle() || round % reloadEveryRounds === 0) wake(endpointId, 'reload');
        }
        await sleep(schedulePollMs, undefined, { signal: term.signal }).catch(() => undefined);
      }
    };

    /** Deletes delivered messages past the retention in bounded batches; dead and held ones stay. */
    const prune = async (): Promise<void> => {
      while (!term.signal.aborted) {
        const olderThan = new Date(settings.now() - retentionMs);
        let removed = 0;
        for (;;) {
          const round = await pruneDeliveredWebhookMessages(pool, olderThan, pruneBatchSize);
          removed += round.messages;
          if (round.messages < pruneBatchSize || term.signal.aborted) break;
        }
        await thinLogMarks(pool, olderThan);
        if (removed > 0)
          logger.info({ messages: removed, olderThan }, 'webhook relay pruned delivered messages');
        await sleep(pruneIntervalMs, undefined, { signal: term.signal }).catch(() => undefined);
      }
    };

    const watchLease = async (): Promise<void> => {
      while (!term.signal.aborted) {
        await sleep(leaseRetryMs, undefined, { signal: term.signal }).catch(() => undefined);
        if (!term.signal.aborted) await client.query('SELECT 1');
      }
    };

    try {
      await Promise.all([dispatch(), schedule(), prune(), watchLease()].map((part) => part.catch(fail)));
    } finally {
      term.abort();
      stopping.signal.removeEventListener('abort', endTerm);
      await Promise.allSettled([...workers.values()].map((worker) => worker.done));
    }
    if (failure) throw failure.error;
  };

  const run = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      let client: PoolClient | undefined;
      let broken: Error | undefined;
      try {
        client = await pool.connect();
        client.on('error', (error) => logger.warn({ err: error }, 'webhook relay lease connection failed'));
        await client.query(`SELECT set_config('application_name', $1, false)`, [relayLeaseName]);
        const taken = await client.query<{ acquired: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS acquired',
          [relayLeaseName],
        );
        if (taken.rows[0]?.acquired) {
          state = 'leading';
          logger.info({}, 'webhook relay took the lease');
          await lead(client);
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [relayLeaseName]);
        }
      } catch (error) {
        broken = error instanceof Error ? error : new Error(String(error));
        if (!stopping.signal.aborted)
          logger.warn({ err: broken }, 'webhook relay lost the lease; back to standby');
      } finally {
        // The lease connection is never reused: its application_name marks it, and a broken one frees the lease.
        client?.release(broken ?? true);
      }
      if (stopping.signal.aborted) break;
      state = 'standby';
      await sleep(leaseRetryMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
    state = 'stopped';
  };

  const running = run();
  return {
    state: () => state,
    stop: async () => {
      stopping.abort();
      await running;
    },
  };
};
