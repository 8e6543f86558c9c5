import { createIdempotentClient, createMemoryIntentStorage, createOnceApi } from '@once/client';
import type { paths } from './once-api-paths.generated.js';
import type { Session } from './session.js';

export const sellACoffee = async (session: Session) => {
  // `paths` is what openapi-typescript generates from the api's GET /docs/json.
  const once = createOnceApi<paths>(
    createIdempotentClient({
      storage: createMemoryIntentStorage(),
      baseUrl: session.baseUrl,
      headers: () => ({ authorization: `Bearer ${session.token}` }),
    }),
  );

  // Route names, bodies and answers are typed from that document.
  const invoice = await once.command('POST /invoices', {
    body: { currency: 'EUR', lines: [{ description: 'Flat white', quantity: 1, unitPrice: 450 }] },
  });
  if (invoice.kind !== 'succeeded') throw new Error(`no invoice: ${invoice.kind}`);

  const payment = await once.command('POST /invoices/{id}/payments', {
    params: { id: invoice.body.id },
    body: { method: 'cash', amount: invoice.body.outstanding, currency: 'EUR' },
  });
  return payment.kind === 'succeeded' ? payment.body.status : payment.kind; // 'recorded'
};
