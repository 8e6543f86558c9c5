import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { describe, expect, it } from 'vitest';
import { createIdempotencyEngine } from '../engine/idempotency-engine.js';
import { keyStreamName } from '../key-log/index.js';
import { incrementCounterHandler, incrementInput } from '../testing/index.js';
import { isSecretReference, secretReference, withSecretsReferenced } from './secret-reference.js';

const referenceKey = randomBytes(32);

describe('secret references', () => {
  it('replace only the named string fields, the same secret under one key always by the same reference', () => {
    const stored = withSecretsReferenced(
      { amount: 800, cardToken: 'tok_visa', note: 'tok_visa' },
      ['cardToken'],
      referenceKey,
    );
    expect(stored).toEqual({
      amount: 800,
      cardToken: secretReference('tok_visa', referenceKey),
      note: 'tok_visa',
    });
    expect(secretReference('tok_visa', referenceKey)).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(isSecretReference(secretReference('tok_visa', referenceKey))).toBe(true);
    expect(isSecretReference('tok_visa')).toBe(false);
    expect(withSecretsReferenced({ cardToken: 'tok_visa' }, [], referenceKey)).toEqual({
      cardToken: 'tok_visa',
    });
  });

  it('are keyed: no plain hash of the secret, another key gives another reference', () => {
    const reference = secretReference('4242424242424242', referenceKey);
    const plainHash = createHash('sha256').update('4242424242424242').digest('hex');
    expect(reference).not.toContain(plainHash);
    expect(secretReference('4242424242424242', randomBytes(32))).not.toBe(reference);
  });

  it.each([
    // The phased claim records the command (with the reference); the atomic completion records no command at all.
    { protocol: 'phased', atomicMultiStreamAppend: false, storesCommand: true },
    { protocol: 'atomic', atomicMultiStreamAppend: true, storesCommand: false },
  ] as const)(
    'keep the secret out of the key log while the live handler sees it ($protocol)',
    async ({ atomicMultiStreamAppend, storesCommand }) => {
      const store = createInMemoryEventStore({ atomicMultiStreamAppend });
      const engine = createIdempotencyEngine({ store, secretReferenceKey: referenceKey });
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const key = randomUUID();
      const base = incrementInput('c1', 1);
      const seen: unknown[] = [];
      const counter = incrementCounterHandler();
      const outcome = await engine.execute({
        scope,
        key,
        request: base.request,
        command: {
          ...base.command,
          data: { ...base.command.data, pin: 'secret-1234' },
          secretFields: ['pin'],
        },
        handler: {
          ...counter,
          streams: (context) => {
            seen.push(context.command);
            return counter.streams(context);
          },
        },
      });
      expect(outcome.kind).toBe('first');
      expect(seen).toContainEqual(expect.objectContaining({ pin: 'secret-1234' }));
      const keyLog = JSON.stringify(
        (await store.readStream(keyStreamName(scope, key))).map((event) => event.data),
      );
      expect(keyLog).not.toContain('secret-1234');
      expect(keyLog.includes(secretReference('secret-1234', referenceKey))).toBe(storesCommand);
    },
  );
});
