import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import { verifyWebhook } from '@once/webhooks';
import { receiveWebhookOnce } from '@once/webhooks/postgres';

/** One request as the receiver got it, before any check. */
export interface ReceivedRequest {
  readonly id: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
  readonly at: number;
}

/** A local Standard Webhooks receiver for tests and benchmarks. */
export interface WebhookReceiver {
  readonly url: string;
  /** Every request, in arrival order (refused ones included). */
  readonly requests: ReceivedRequest[];
  /** Message ids applied through the inbox, in the order they were applied. */
  readonly applied: string[];
  /** While down, every request is answered 503. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

export interface WebhookReceiverOptions {
  /** The secrets it accepts (any one). */
  readonly secrets: () => readonly string[];
  /** With a pool, each message is applied once through the PostgreSQL inbox under this consumer name. */
  readonly inbox?: { readonly pool: Pool; readonly consumer: string };
  /** Called when a message is applied (for latency measurements). */
  readonly onApplied?: (id: string, body: string) => void;
}

/**
 * Starts a receiver on 127.0.0.1: verifies each delivery (401 with the reason when it does not verify), applies it
 * once through the inbox when given one (a duplicate is answered 200, ignored), and answers 204.
 *
 * @example
 * const receiver = await startWebhookReceiver({ secrets: () => [secret] });
 */
export const startWebhookReceiver = async (options: WebhookReceiverOptions): Promise<WebhookReceiver> => {
  const requests: ReceivedRequest[] = [];
  const applied: string[] = [];
  let down = false;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id'] ?? '');
      requests.push({ id, headers: request.headers, body, at: Date.now() });
      if (down) {
        response.writeHead(503).end();
        return;
      }
      const verified = verifyWebhook({ secrets: options.secrets(), headers: request.headers, body });
      if (!verified.ok) {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(verified));
        return;
      }
      const apply = async (): Promise<boolean> => {
        if (!options.inbox) return true;
        const receipt = await receiveWebhookOnce(
          options.inbox.pool,
          { consumer: options.inbox.consumer, webhookId: verified.id },
          async () => undefined,
        );
        return receipt.outcome === 'applied';
      };
      apply().then(
        (fresh) => {
          if (fresh) {
            applied.push(verified.id);
            options.onApplied?.(verified.id, body);
          }
          response.writeHead(fresh ? 204 : 200).end();
        },
        () => response.writeHead(500).end(),
      );
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/webhooks`,
    requests,
    applied,
    setDown: (value) => {
      down = value;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
