import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../testing/index.js';
import type { TextResponse } from '../testing/index.js';

// Keys kept one second, so a test can outlive one (the api refuses to start so short from its environment; the
// retention floor is main's, not buildApp's).
const env = useTestApi({ operations: { keyRetentionSeconds: 1 } });

const command = (path: string, body: unknown, key = randomUUID()) =>
  env.http.post(path, { apiKey: env.tenant.alice, key, body });

/** Retries `send` as a client would while its answer is a replay; the first answer that is not one. */
const retryUntilNotReplayed = async (send: () => Promise<TextResponse>): Promise<TextResponse> => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await send();
    if (answer.headers.get('idempotent-replayed') !== 'true') return answer;
    await sleep(50);
  }
  throw new Error('the key was still replayed after 200 retries');
};

describe('a key reused after its retention', () => {
  it('answers 422 idempotency-key-expired, at every retry and never Retry-After, and records the line once', async () => {
    const { id } = (await command('/stock-counts', {})).json<{ id: string }>();
    const key = randomUUID();
    const line = { sku: 'beans-1kg', countedQuantity: 12 };
    const first = await command(`/stock-counts/${id}/lines`, line, key);
    expect(first.status).toBe(200);

    const expired = await retryUntilNotReplayed(() => command(`/stock-counts/${id}/lines`, line, key));
    for (const answer of [expired, await command(`/stock-counts/${id}/lines`, line, key)]) {
      expect(answer.status).toBe(422);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.headers.get('retry-after')).toBeNull();
      expect(answer.headers.get('link')).toContain('</problems/idempotency-key-expired>; rel="describedby"');
      expect(answer.json()).toMatchObject({ type: '/problems/idempotency-key-expired', status: 422 });
    }
    // Another body under the same key, on the same count: the key is spent there too.
    expect((await command(`/stock-counts/${id}/lines`, { ...line, countedQuantity: 13 }, key)).status).toBe(
      422,
    );

    const { rows } = await env.db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM events WHERE type = 'StockCountLineRecorded' AND data->>'stockCountId' = $1`,
      [id],
    );
    expect(Number(rows[0]?.n)).toBe(1);
    expect((await env.http.get(`/stock-counts/${id}`, env.tenant.alice)).json()).toMatchObject({
      lines: [{ sku: 'beans-1kg', countedQuantity: 12 }],
    });
  });
});
