import { createIdempotentClient, openBrowserIntentStorage } from '@once/client';
import type { Session } from './session.js';

export const payInvoice = async (session: Session, invoiceId: string) => {
  const client = createIdempotentClient({
    storage: await openBrowserIntentStorage('payments'), // IndexedDB, or localStorage where IndexedDB is missing
    baseUrl: session.baseUrl,
    headers: () => ({ authorization: `Bearer ${session.token}` }),
  });

  const intent = await client.createIntent({
    method: 'POST',
    path: `/invoices/${invoiceId}/payments`,
    body: { method: 'cash', amount: 450, currency: 'EUR' },
  });
  const outcome = await client.submit(intent);

  let message: string;
  switch (outcome.kind) {
    case 'succeeded': // 2xx; outcome.replayed is true when an earlier attempt had already done the work
      message = outcome.replayed ? 'already paid' : 'paid';
      break;
    case 'rejected': // a 4xx another try cannot change, with its RFC 9457 problem document
      message = `refused: ${outcome.problem.title ?? outcome.status}`;
      break;
    case 'gave-up': // no definitive answer; the intent is still stored, under the same key
      message = `no answer yet (${outcome.reason}): will try again`;
      break;
  }

  // After a reload or an app restart: send what is still pending, with the keys it was created with.
  for (const pending of await client.pendingIntents()) await client.submit(pending);
  return message;
};
