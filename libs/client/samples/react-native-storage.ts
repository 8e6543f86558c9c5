import { createAsyncStorageIntentStorage, createIdempotentClient, createOfflineQueue } from '@once/client';
import type { AsyncKeyValueStorage } from '@once/client';
import type { Session } from './session.js';

// asyncStorage: `import AsyncStorage from '@react-native-async-storage/async-storage'`, or anything of its shape
export const startAppQueue = (session: Session, asyncStorage: AsyncKeyValueStorage) => {
  const client = createIdempotentClient({
    storage: createAsyncStorageIntentStorage('orders', asyncStorage),
    baseUrl: session.baseUrl,
    headers: () => ({ authorization: `Bearer ${session.token}` }),
  });
  const queue = createOfflineQueue({ client }); // intents older than the server's 24 h key retention expire unsent
  queue.start();
  return queue;
};
