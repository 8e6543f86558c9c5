import {
  connectBrowserConnectivity,
  createIdempotentClient,
  createOfflineQueue,
  openBrowserIntentStorage,
} from '@once/client';
import type { QueueEvent } from '@once/client';
import type { Session } from './session.js';

export const startOrderQueue = async (session: Session, onEvent: (event: QueueEvent) => void) => {
  const client = createIdempotentClient({
    storage: await openBrowserIntentStorage('orders'), // a storage of its own: the queue owns it
    baseUrl: session.baseUrl,
    headers: () => ({ authorization: `Bearer ${session.token}` }),
  });
  const queue = createOfflineQueue({ client, maxAgeMs: 20 * 60 * 60 * 1000 }); // below the server's 24 h key retention
  queue.subscribe((event) => {
    onEvent(event); // 'succeeded', 'rejected' (e.g. 422 held for review), 'blocked' (401/403), 'gave-up', ...
    if (event.type === 'blocked') queue.resume(); // after signing in again
  });
  connectBrowserConnectivity(queue); // window online/offline events; or call queue.setOnline(...) yourself
  queue.start(); // picks up whatever a previous run left in storage

  await queue.enqueue({
    method: 'POST',
    path: '/orders',
    body: { currency: 'EUR', lines: [{ sku: 'espresso', quantity: 2 }] },
  });
  return queue;
};
