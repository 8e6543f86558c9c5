import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import { registerBackgroundWorkMetrics } from '@once/cafe';
import type { BackgroundWorkMetrics, BackgroundWorkSettings } from '@once/cafe';
import type { WebhookUrlPolicy } from '@once/webhooks';
import type { ProjectorThreadData, ProjectorThreadMessage } from './projector.thread.js';
import { superviseThread } from './thread-supervisor.js';
import type { SupervisedThread } from './thread-supervisor.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The in-process projector thread (absent with an external projector). */
    projectorThread?: { alive(): boolean; restarts(): number };
  }
}

export interface ProjectorPluginOptions {
  readonly databaseUrl: string;
  /** `ONCE_SECRETS_KEY`'s value, for the relay to unseal the endpoints' secrets and the completer to seal. */
  readonly secretsKey: string;
  /** The settings of the background work (`startBackgroundWork`). */
  readonly settings: BackgroundWorkSettings;
  /** Which endpoint URLs the webhook relay delivers to. */
  readonly webhookUrlPolicy: WebhookUrlPolicy;
  /** How long the completer waits for the gateway before a charge counts as unknown (ms). */
  readonly gatewayTimeoutMs?: number | undefined;
}

/**
 * The worker that runs `projector.thread`: its compiled module, or from sources (`npm start`, the tests) a module
 * that registers tsx in the thread first (a worker does not inherit the loader of the thread that starts it).
 */
const projectorWorker = (workerData: ProjectorThreadData): Worker => {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./projector.thread.js', import.meta.url), { workerData });
  const thread = new URL('./projector.thread.ts', import.meta.url).href;
  return new Worker(new URL('./projector.thread.source.mjs', import.meta.url), {
    workerData: { ...workerData, thread },
    execArgv: ['--conditions=@once/source'],
  });
};

/** Starts one projector thread and resolves once it runs (rejects when it could not start). */
const startProjectorThread = async (
  app: FastifyInstance,
  workerData: ProjectorThreadData,
  metrics: BackgroundWorkMetrics,
): Promise<SupervisedThread> => {
  const worker = projectorWorker(workerData);
  let stopping = false;
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  worker.on('error', (error) => {
    if (!stopping) app.log.error({ err: error }, 'the projector thread failed');
  });
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (message: ProjectorThreadMessage) => {
      if (message.kind === 'started') resolve();
      else if (message.kind === 'failed')
        reject(new Error(`the projector did not start: ${message.message}`));
      else if (message.kind === 'scavenger-round') metrics.scavengerRound(message.round);
      else if (message.kind === 'server-scavenge') metrics.serverScavenge(message.startedAt);
      else app.log[message.level](message.data, message.message);
    });
    worker.once('error', reject);
    void exited.then((code) => reject(new Error(`the projector thread exited with ${String(code)}`)));
  });
  return {
    exited,
    stop: async () => {
      stopping = true;
      worker.postMessage('stop');
      const stopped = await Promise.race([
        exited.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 10_000)),
      ]);
      if (!stopped) await worker.terminate();
    },
  };
};

/**
 * Runs the background work (`startBackgroundWork`: the read-model projections, the webhook relay, retention and the
 * completer) inside the api process (the embedded default and tests) on a thread of its own, with its own
 * connections, so a batch never holds up a request on the api's event loop. In production it runs as its own service
 * (apps/projector); several runners are safe, one leads per part. A thread that dies is restarted after an exponential backoff (1 s doubling to 60 s), counted
 * in `once_projector_thread_restarts_total`; `/health/ready` answers 503 while it is down.
 */
export const projectorPlugin = fp<ProjectorPluginOptions>(
  async (app, options) => {
    const restarts = new Counter({
      name: 'once_projector_thread_restarts_total',
      help: 'Restarts of the in-process projector thread after it died',
      registers: [app.metricsRegistry],
    });
    // The rounds the thread leads are reported in this process's /metrics.
    const metrics = registerBackgroundWorkMetrics(app.metricsRegistry);
    const supervisor = await superviseThread({
      start: () =>
        startProjectorThread(
          app,
          {
            databaseUrl: options.databaseUrl,
            secretsKey: options.secretsKey,
            settings: options.settings,
            urlPolicy: options.webhookUrlPolicy,
            gatewayTimeoutMs: options.gatewayTimeoutMs,
          },
          metrics,
        ),
      onRestart: () => restarts.inc(),
      log: {
        warn: (details, message) => app.log.warn(details, `projector: ${message}`),
        error: (details, message) => app.log.error(details, `projector: ${message}`),
      },
    });
    app.decorate('projectorThread', {
      alive: () => supervisor.alive(),
      restarts: () => supervisor.restarts(),
    });
    app.addHook('onClose', async () => supervisor.stop());
  },
  { name: 'once-projector', fastify: '5.x', dependencies: ['once-event-store', 'once-observability'] },
);
