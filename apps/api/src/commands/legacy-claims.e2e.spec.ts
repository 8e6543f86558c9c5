import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { keyStreamName } from '@once/idempotency/key-log';
import { createApiKeyStore } from '../auth/index.js';
import { useTestApi } from '../testing/index.js';
import type {} from '../plugins/idempotency-engine.plugin.js';
import type {} from '../plugins/event-store.plugin.js';

interface StoredKeyLog {
  readonly tenantId: string;
  readonly actorId: string;
  readonly key: string;
  readonly events: readonly { readonly id: string; readonly type: string; readonly data: unknown }[];
}

const storedKeyLog = async (): Promise<StoredKeyLog> =>
  JSON.parse(
    await readFile(new URL('./fixtures/first-format-key-log.json', import.meta.url), 'utf8'),
  ) as StoredKeyLog;

const env = useTestApi({ completerIntervalMs: 100 });

describe('a key log of the first format (the request in the claim)', () => {
  it('is resumed by the completer through the upcaster, and the client retry replays its answer', async () => {
    const log = await storedKeyLog();
    const { app } = env.api;
    const apiKey = await createApiKeyStore(app.pg).create({
      tenantId: log.tenantId,
      actorId: log.actorId,
      label: 'first-format',
    });
    const keyStream = keyStreamName({ tenantId: log.tenantId, actorId: log.actorId }, log.key);
    await app.eventStore.appendToStream(keyStream, log.events, { expectedRevision: 'no_stream' });

    let state = await app.commandEngine.readKeyState(keyStream);
    for (let tries = 0; tries < 200 && state.status === 'inFlight'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = await app.commandEngine.readKeyState(keyStream);
    }
    expect(state).toMatchObject({ status: 'completed', response: { status: 201 } });

    // The same request under the same key: the fingerprint the first format stored still matches.
    const retry = await env.http.post('/stock-counts', { apiKey, key: log.key, body: {} });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json()).toMatchObject({ status: 'open', openedAt: '2026-11-01T10:00:00.000Z' });
  });
});
