import { createIdempotentClient, createMemoryIntentStorage } from '@once/client';
import type { Session } from './session.js';

export const placeOrder = async (session: Session) => {
  const client = createIdempotentClient({
    storage: createMemoryIntentStorage(), // intents live as long as the page; see below for durable storage
    baseUrl: session.baseUrl,
    headers: () => ({ authorization: `Bearer ${session.token}` }), // asked per attempt, never stored
  });

  // One call: a new key for this intent, stored, then sent until a definitive answer.
  const outcome = await client.post('/orders', {
    currency: 'EUR',
    lines: [{ sku: 'espresso', quantity: 2 }],
  });
  if (outcome.kind === 'succeeded') return outcome.body; // the order, as the api answered it
  throw new Error(`not placed: ${outcome.kind}`);
};
