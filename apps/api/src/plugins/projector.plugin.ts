import { Worker } from 'node:worker_threads';
import fp from 'fastify-plugin';
import type { WebhookUrlPolicy } from '@once/webhooks';
import type { ProjectorThreadData, ProjectorThreadMessage } from './projector.thread.js';

export interface ProjectorPluginOptions {
  readonly databaseUrl: string;
  readonly eventStoreUrl?: string | undefined;
  /** Which endpoint URLs the webhook relay delivers to. */
  readonly webhookUrlPolicy: WebhookUrlPolicy;
  /** How long the relay keeps delivered webhook messages (ms); its default (30 days) when omitted. */
  readonly webhookRetentionMs?: number;
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

/**
 * Runs the read-model projections and the webhook relay inside the api process (the embedded default and tests) on a
 * thread of their own, with their own connections, so a batch never holds up a request on the api's event loop. In
 * production they run as their own service (apps/projector); several runners are safe, one leads per projection
 * and one relay delivers.
 */
export const projectorPlugin = fp<ProjectorPluginOptions>(
  async (app, options) => {
    const worker = projectorWorker({
      databaseUrl: options.databaseUrl,
      eventStoreUrl: options.eventStoreUrl,
      webhookUrlPolicy: options.webhookUrlPolicy,
      webhookRetentionMs: options.webhookRetentionMs,
      pollIntervalMs: 50,
    });
    let closing = false;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (message: ProjectorThreadMessage) => {
        if (message.kind === 'started') resolve();
        else if (message.kind === 'failed')
          reject(new Error(`the projector did not start: ${message.message}`));
        else app.log[message.level](message.data, message.message);
      });
      worker.once('error', (error) => {
        if (closing) return;
        app.log.error({ err: error }, 'the projector thread failed');
        reject(error);
      });
      worker.once('exit', (code) => {
        if (!closing) reject(new Error(`the projector thread exited with ${String(code)}`));
      });
    });
    app.addHook('onClose', async () => {
      closing = true;
      worker.postMessage('stop');
      const stopped = await Promise.race([
        exited.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 10_000)),
      ]);
      if (!stopped) await worker.terminate();
    });
  },
  { name: 'once-projector', fastify: '5.x', dependencies: ['once-event-store'] },
);
