import { createIdempotentClient, createOfflineQueue } from '@once/client';
import { createFileIntentStorage } from '@once/client/node';
import type { Session } from './session.js';

export const startTillQueue = (session: Session, intentsFile: string) => {
  const client = createIdempotentClient({
    storage: createFileIntentStorage(intentsFile), // e.g. /var/lib/pos/intents.json
    baseUrl: session.baseUrl,
    headers: () => ({ authorization: `Bearer ${session.token}` }),
  });
  const queue = createOfflineQueue({ client });
  queue.start();
  return queue;
};
