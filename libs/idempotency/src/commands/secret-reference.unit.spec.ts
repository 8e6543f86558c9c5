import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { fingerprint } from '@once/canonical-json';
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
      const engine = createIdempotencyEngine({ store, secretReferenceKeys: [referenceKey] });
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

describe('the request fingerprint of a command with secret fields', () => {
  it.each([
    { protocol: 'phased', atomicMultiStreamAppend: false },
    { protocol: 'atomic', atomicMultiStreamAppend: true },
  ] as const)(
    'hashes the reference, not the secret; a retry matches under an older key ($protocol)',
    async ({ atomicMultiStreamAppend }) => {
      const store = createInMemoryEventStore({ atomicMultiStreamAppend });
      const [olderKey, newerKey] = [randomBytes(32), randomBytes(32)];
      const engine = (keys: readonly Uint8Array[]) =>
        createIdempotencyEngine({ store, secretReferenceKeys: keys, completedKeys: { capacity: 0 } });
      const scope = { tenantId: randomUUID(), actorId: randomUUID() };
      const key = randomUUID();
      const base = incrementInput('c1', 1);
      const run = (keys: readonly Uint8Array[], pin: string) =>
        engine(keys).execute({
          scope,
          key,
          request: { ...base.request, body: { by: 1, pin } },
          command: { ...base.command, data: { ...base.command.data, pin }, secretFields: ['pin'] },
          handler: incrementCounterHandler(),
        });

      expect((await run([olderKey], '1234')).kind).toBe('first');
      const plainHash = fingerprint({ ...base.request, body: { by: 1, pin: '1234' } });
      const keyLog = JSON.stringify((await store.readStream(keyStreamName(scope, key))).map((e) => e.data));
      expect(keyLog).not.toContain(plainHash);
      expect(keyLog).toContain(
        fingerprint({ ...base.request, body: { by: 1, pin: secretReference('1234', olderKey) } }),
      );

      expect((await run([olderKey], '1234')).kind).toBe('replay');
      expect((await run([olderKey], '9999')).kind).toBe('reused');
      // After the server key changed: the same request still replays while the older key is kept.
      expect((await run([newerKey, olderKey], '1234')).kind).toBe('replay');
      expect((await run([newerKey, olderKey], '9999')).kind).toBe('reused');
      expect((await run([newerKey], '1234')).kind).toBe('reused');
    },
  );
});
