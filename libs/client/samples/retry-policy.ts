import { createIdempotentClient, createMemoryIntentStorage } from '@once/client';
import type { Session } from './session.js';

export const payWithPatience = async (session: Session, invoiceId: string) => {
  const client = createIdempotentClient({
    storage: createMemoryIntentStorage(),
    baseUrl: session.baseUrl,
    headers: () => ({ authorization: `Bearer ${session.token}` }),
    retry: { baseDelayMs: 500, maxDelayMs: 30_000, maxRetries: 8, deadlineMs: 120_000 },
    // for deterministic tests: now, sleep and random are injectable, and so is fetch
  });
  const intent = await client.createIntent({
    method: 'POST',
    path: `/invoices/${invoiceId}/payments`,
    body: { method: 'cash', amount: 100, currency: 'EUR' },
  });
  return client.submit(intent, { signal: AbortSignal.timeout(5_000) });
};
