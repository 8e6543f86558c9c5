import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import { verifyWebhook } from '@once/webhooks';
import { receiveWebhookOnce } from '@once/webhooks/postgres';
import { applyOrderEvent, listTickets } from './kitchen-tickets.js';
import type { KitchenTicket, OrderWebhook } from './kitchen-tickets.js';

export interface KitchenDisplayDeps {
  readonly pool: Pool;
  /** The endpoint's secrets (the current one, and the previous one during a rotation). */
  readonly secrets: () => readonly string[];
}

/** The inbox consumer name: one kitchen's claims are separate from any other consumer in the same database. */
export const kitchenConsumer = 'kitchen-display';
const bodyLimit = 256 * 1024;

const send = (response: ServerResponse, status: number, body?: unknown): void => {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

const readBody = (request: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= bodyLimit) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > bodyLimit ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => `&#${String(character.charCodeAt(0))};`);

const page = (tickets: readonly KitchenTicket[]): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>Kitchen display</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;background:#111;color:#eee}
.ticket{display:inline-block;vertical-align:top;margin:.5rem;padding:1rem;background:#222;border-radius:.5rem;min-width:12rem}
h2{font-size:1rem;margin:0 0 .5rem}li{font-size:1.25rem}</style></head>
<body><h1>To prepare (${String(tickets.length)})</h1>
${tickets
  .map(
    (ticket) =>
      `<div class="ticket"><h2>${escape(ticket.orderId.slice(0, 8))} · ${escape(ticket.placedAt.slice(11, 19))}</h2><ul>${ticket.lines
        .map((line) => `<li>${String(line.quantity)} × ${escape(line.sku)}</li>`)
        .join('')}</ul></div>`,
  )
  .join('\n')}
</body></html>`;

/**
 * The kitchen display's HTTP server:
 * - `POST /webhooks`: Once's signed deliveries. A delivery that does not verify (bad signature, timestamp more than
 *   five minutes off, missing headers) is refused with 401 and the reason; a `webhook-id` applied before is answered
 *   200 `{"outcome":"duplicate"}` and ignored; a new one is applied in one transaction with its inbox claim (204).
 * - `GET /`: the orders to prepare, as a page that refreshes itself; `GET /tickets?status=…`: the same as JSON.
 * - `GET /health`.
 *
 * @example
 * const server = createKitchenDisplay({ pool, secrets: () => [secret] });
 * server.listen(3200);
 */
export const createKitchenDisplay = (deps: KitchenDisplayDeps): Server =>
  createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://kitchen');
    const handle = async (): Promise<void> => {
      if (request.method === 'POST' && url.pathname === '/webhooks') {
        const body = await readBody(request);
        if (body === undefined) return send(response, 413, { reason: 'body-too-large' });
        const verified = verifyWebhook({ secrets: deps.secrets(), headers: request.headers, body });
        if (!verified.ok) return send(response, 401, { reason: verified.reason });
        let message: OrderWebhook;
        try {
          message = JSON.parse(body) as OrderWebhook;
        } catch {
          return send(response, 400, { reason: 'not-json' });
        }
        const receipt = await receiveWebhookOnce(
          deps.pool,
          { consumer: kitchenConsumer, webhookId: verified.id },
          (client) => applyOrderEvent(client, message),
        );
        return receipt.outcome === 'duplicate'
          ? send(response, 200, { outcome: 'duplicate' })
          : send(response, 204);
      }
      if (request.method === 'GET' && url.pathname === '/') {
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(page(await listTickets(deps.pool, 'to-prepare')));
        return;
      }
      if (request.method === 'GET' && url.pathname === '/tickets') {
        const status = url.searchParams.get('status') ?? 'to-prepare';
        if (!['to-prepare', 'held', 'served', 'completed'].includes(status)) {
          return send(response, 400, { reason: 'unknown status' });
        }
        return send(response, 200, {
          tickets: await listTickets(deps.pool, status as KitchenTicket['status']),
        });
      }
      if (request.method === 'GET' && url.pathname === '/health')
        return send(response, 200, { status: 'ok' });
      return send(response, 404, { reason: 'not-found' });
    };
    handle().catch(() => send(response, 500, { reason: 'internal-error' }));
  });
