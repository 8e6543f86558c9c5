import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CommandHandler } from './command-handler.js';
import { CompletedKeys, completedKeyMemory } from './completed-keys.js';
import type { CompletedKey } from './completed-keys.js';
import type { EngineSettings } from './engine-settings.js';
import { Execution } from './execution.js';

const completed = (body: string): CompletedKey => ({
  fingerprint: { method: 'POST', route: '/counters/:id/increments', requestHash: 'ab' },
  response: { status: 201, headers: {}, body },
  position: undefined,
});

describe('CompletedKeys', () => {
  it('answers a remembered key until the earlier of its time to live and its expiry', () => {
    const keys = new CompletedKeys(10, 1_000);
    keys.remember('idem-a', completed('a'), 0, 10_000);
    keys.remember('idem-b', completed('b'), 0, 500);
    expect(keys.get('idem-a', 999)?.response.body).toBe('a');
    expect(keys.get('idem-a', 1_000)).toBeUndefined();
    expect(keys.get('idem-b', 499)?.response.body).toBe('b');
    expect(keys.get('idem-b', 500)).toBeUndefined();
  });

  it('drops the key remembered longest beyond its capacity', () => {
    const keys = new CompletedKeys(2, 1_000);
    keys.remember('idem-a', completed('a'), 0, 10_000);
    keys.remember('idem-b', completed('b'), 0, 10_000);
    keys.remember('idem-a', completed('a'), 1, 10_000);
    keys.remember('idem-c', completed('c'), 1, 10_000);
    expect(keys.get('idem-b', 2)).toBeUndefined();
    expect(keys.get('idem-a', 2)?.response.body).toBe('a');
    expect(keys.get('idem-c', 2)?.response.body).toBe('c');
  });

  it('remembers nothing with a capacity of 0, or a key already at its expiry', () => {
    const none = new CompletedKeys(0, 1_000);
    none.remember('idem-a', completed('a'), 0, 10_000);
    expect(none.get('idem-a', 1)).toBeUndefined();
    const keys = new CompletedKeys(10, 1_000);
    keys.remember('idem-a', completed('a'), 100, 100);
    expect(keys.get('idem-a', 100)).toBeUndefined();
  });
});

describe("the engine's memory of completed keys", () => {
  // The memory reads only the engine's clock and retention.
  const settings = { clock: () => 0, retentionSeconds: 3_600 } as EngineSettings;
  const handler: CommandHandler = {
    kind: 'decide',
    streams: () => [],
    decide: () => {
      throw new Error('not run');
    },
  };
  const execution = (key: string, body: unknown, referenceKeys: readonly Uint8Array[] = []) =>
    new Execution(
      {
        scope: { tenantId: 'tenant-1', actorId: 'actor-1' },
        key,
        request: { method: 'POST', route: '/payments', params: {}, body },
        command: { type: 'Pay', version: 1, data: {}, secretFields: ['cardToken'] },
        handler,
      },
      referenceKeys,
    );
  const response = { status: 201, headers: {}, body: '{}' };

  it('keeps a short request without secrets, to tell a retry without hashing it', () => {
    const keys = new CompletedKeys();
    completedKeyMemory(keys, settings).remember(execution('k-1', { amount: 1 }), response, undefined, 0);
    expect(keys.get(JSON.stringify(['tenant-1', 'actor-1', 'k-1']), 1)?.request).toEqual({
      method: 'POST',
      route: '/payments',
      params: {},
      body: { amount: 1 },
    });
  });

  it('never keeps a request that holds a secret, nor a long one; both are still told by their hash', () => {
    const keys = new CompletedKeys();
    const memory = completedKeyMemory(keys, settings);
    const referenceKeys = [randomBytes(32)];
    const card = { amount: 1, cardToken: 'tok_kept_nowhere' };
    const long = { amount: 1, note: 'x'.repeat(2_000) };
    memory.remember(execution('k-card', card, referenceKeys), response, undefined, 0);
    memory.remember(execution('k-long', long), response, undefined, 0);
    for (const key of ['k-card', 'k-long']) {
      const remembered = keys.get(JSON.stringify(['tenant-1', 'actor-1', key]), 1);
      expect(remembered?.request).toBeUndefined();
      expect(JSON.stringify(remembered)).not.toContain('tok_kept_nowhere');
    }
    expect(memory.answer(execution('k-card', { ...card }, referenceKeys))).toMatchObject({ kind: 'replay' });
    expect(memory.answer(execution('k-long', { ...long }))).toMatchObject({ kind: 'replay' });
    expect(memory.answer(execution('k-card', { ...card, amount: 2 }, referenceKeys))).toMatchObject({
      kind: 'reused',
    });
  });
});
