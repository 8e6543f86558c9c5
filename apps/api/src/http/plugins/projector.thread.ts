import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { openEventStore, startBackgroundWork } from '@once/cafe';
import type { BackgroundWork, BackgroundWorkSettings } from '@once/cafe';
import type { ScavengerRound } from '@once/event-store/postgres';
import type { ProjectionLogger } from '@once/projections';
import { allProjections } from '@once/read-models';
import { createSecretsKeyring, parseSecretsKeys } from '@once/webhooks';
import type { WebhookUrlPolicy } from '@once/webhooks';

/** What the api gives its background thread (see `projector.plugin.ts`). */
export interface ProjectorThreadData {
  readonly databaseUrl: string;
  /** `ONCE_SECRETS_KEY`'s value: the relay unseals the endpoints' secrets with it, the completer seals with it. */
  readonly secretsKey: string;
  readonly settings: BackgroundWorkSettings;
  readonly urlPolicy: WebhookUrlPolicy;
  readonly gatewayTimeoutMs: number | undefined;
}

/** What the thread tells the api: it runs, or it could not start, and what it logs (the api's logger writes it). */
export type ProjectorThreadMessage =
  | { readonly kind: 'started' }
  | { readonly kind: 'failed'; readonly message: string }
  | {
      readonly kind: 'log';
      readonly level: keyof ProjectionLogger;
      readonly data: object;
      readonly message: string | undefined;
    }
  | { readonly kind: 'scavenger-round'; readonly round: ScavengerRound }
  | { readonly kind: 'server-scavenge'; readonly startedAt: Date };

/** A log line's data as it crosses to the api's thread: errors and plain values as they are, anything else as text. */
const cloneable = (logged: object): object => {
  try {
    return structuredClone(logged);
  } catch {
    return {
      data: String(
        JSON.stringify(logged, (_key, value: unknown) =>
          typeof value === 'bigint' ? value.toString() : value,
        ),
      ),
    };
  }
};

const data = workerData as ProjectorThreadData;
const port = parentPort;
if (port === null) throw new Error('projector.thread.ts runs as a worker thread of the api');
const tell = (message: ProjectorThreadMessage): void => port.postMessage(message);
const logAt =
  (level: keyof ProjectionLogger) =>
  (logged: object, message?: string): void =>
    tell({ kind: 'log', level, data: cloneable(logged), message });
const logger: ProjectionLogger = { info: logAt('info'), warn: logAt('warn'), error: logAt('error') };
const pool = new pg.Pool({
  connectionString: data.databaseUrl,
  max: allProjections.length * 2 + 6,
  application_name: 'once-projector',
});
pool.on('error', (error: Error & { code?: string }) =>
  logger.warn({ code: error.code, reason: error.message }, 'idle database connection failed'),
);
// The api migrated the stores before it started this thread.
const store = await openEventStore({ pool, eventStoreUrl: data.settings.EVENTSTORE_URL, migrate: false });

let work: BackgroundWork | undefined;

/** Stops what runs, then lets go of the store and the pool. */
const stopAll = async (): Promise<void> => {
  await work?.stop().catch(() => undefined);
  await store.close().catch(() => undefined);
  await pool.end().catch(() => undefined);
  port.close();
};

try {
  work = await startBackgroundWork(data.settings, {
    pool,
    store,
    secrets: createSecretsKeyring(parseSecretsKeys(data.secretsKey)),
    logger,
    urlPolicy: data.urlPolicy,
    ...(data.gatewayTimeoutMs === undefined ? {} : { gatewayTimeoutMs: data.gatewayTimeoutMs }),
    onScavengerRound: (round) => tell({ kind: 'scavenger-round', round }),
    onServerScavenge: (round) => tell({ kind: 'server-scavenge', startedAt: round.startedAt }),
  });
  port.once('message', () => void stopAll());
  tell({ kind: 'started' });
} catch (error) {
  tell({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  await stopAll();
}
