import type { IntentRecord } from '../history/index.js';
import { answeredId } from './effect-rules.js';
import type { InvoiceReading, OrderReading } from './system-facts.js';

const readAll = async <T>(
  ids: readonly string[],
  read: (id: string) => Promise<T | undefined>,
  concurrency = 16,
): Promise<T[]> => {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) {
        const id = ids[next] as string;
        next += 1;
        const result = await read(id);
        if (result !== undefined) results.push(result);
      }
    }),
  );
  return results;
};

const getJson = async (url: string, apiKey: string): Promise<unknown> => {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    if (response?.status === 404) return undefined;
    if (response?.ok === true) return response.json();
    if (attempt >= 10) throw new Error(`GET ${url} failed (${String(response?.status ?? 'no answer')})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
};

/** The invoices and orders the run created, as the api's read models serve them (GET over HTTP). */
export const readModelsOverHttp = async (
  baseUrl: string,
  apiKey: string,
  intents: readonly IntentRecord[],
): Promise<{ invoices: InvoiceReading[]; orders: OrderReading[] }> => {
  const idsOf = (kind: IntentRecord['kind']) =>
    intents
      .filter((intent) => intent.kind === kind)
      .map(answeredId)
      .filter((id): id is string => id !== undefined);
  const invoices = await readAll(idsOf('issue-invoice'), async (id) => {
    const body = (await getJson(`${baseUrl}/invoices/${id}`, apiKey)) as InvoiceReading | undefined;
    return body && { id: body.id, paid: body.paid, reserved: body.reserved };
  });
  const orders = await readAll(idsOf('place-order'), async (id) => {
    const body = (await getJson(`${baseUrl}/orders/${id}`, apiKey)) as OrderReading | undefined;
    return body && { id: body.id, status: body.status, ...(body.saleId ? { saleId: body.saleId } : {}) };
  });
  return { invoices, orders };
};

/** Keys whose key record the api still shows in flight (`GET /idempotency-keys/:key`). */
export const keysInFlightOverHttp = async (
  baseUrl: string,
  apiKey: string,
  keys: readonly string[],
): Promise<string[]> =>
  readAll(keys, async (key) => {
    const body = (await getJson(`${baseUrl}/idempotency-keys/${encodeURIComponent(key)}`, apiKey)) as
      { status?: string } | undefined;
    return body?.status === 'in_flight' ? key : undefined;
  });
