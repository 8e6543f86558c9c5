import { describe, expect, it } from 'vitest';
import {
  createSecretsKeyring,
  generateSecretsKey,
  InvalidSecretsKeyError,
  isSealedSecret,
  parseSecretsKeys,
  replaceSealedSecrets,
  secretsKeysProblem,
  UnsealError,
} from './secrets-keyring.js';
import { generateWebhookSecret } from './webhook-secret.js';

const keyringOf = (...keys: string[]) => createSecretsKeyring(parseSecretsKeys(keys.join(',')));

describe('the secrets keyring', () => {
  it('seals a secret into an envelope that holds no trace of it, fresh each time, and unseals it', () => {
    const keyring = keyringOf(generateSecretsKey());
    const secret = generateWebhookSecret();
    const sealed = keyring.seal(secret);
    expect(sealed).toMatch(new RegExp(`^sealed:v1:${keyring.currentKeyId}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('whsec_');
    expect(sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(isSealedSecret(sealed)).toBe(true);
    expect(isSealedSecret(secret)).toBe(false);
    expect(keyring.seal(secret)).not.toBe(sealed);
    expect(keyring.unseal(sealed)).toBe(secret);
  });

  it('rotates: a new current key seals, the older one still unseals, a ring without it cannot', () => {
    const [older, newer] = [generateSecretsKey(), generateSecretsKey()];
    const before = keyringOf(older);
    const sealedBefore = before.seal('whsec_before');
    const rotated = keyringOf(newer, older);
    expect(rotated.currentKeyId).not.toBe(before.currentKeyId);
    expect(rotated.keyIds).toEqual([rotated.currentKeyId, before.currentKeyId]);
    expect(rotated.unseal(sealedBefore)).toBe('whsec_before');
    const sealedAfter = rotated.seal('whsec_after');
    expect(sealedAfter.startsWith(`sealed:v1:${rotated.currentKeyId}:`)).toBe(true);
    const withoutOlder = keyringOf(newer);
    expect(withoutOlder.unseal(sealedAfter)).toBe('whsec_after');
    expect(() => withoutOlder.unseal(sealedBefore)).toThrow(UnsealError);
  });

  it('refuses an altered envelope, another key id in its header, and text that is no envelope', () => {
    const keyring = keyringOf(generateSecretsKey());
    const sealed = keyring.seal('whsec_x');
    const payload = sealed.slice(sealed.lastIndexOf(':') + 1);
    const flipped = `${payload.slice(0, 20)}${payload[20] === 'A' ? 'B' : 'A'}${payload.slice(21)}`;
    expect(() => keyring.unseal(sealed.replace(payload, flipped))).toThrow(UnsealError);
    const other = keyringOf(generateSecretsKey());
    expect(() => other.unseal(sealed)).toThrow(UnsealError);
    expect(() => keyring.unseal('whsec_x')).toThrow(UnsealError);
  });

  it('derives a reference key from each server key, apart from the key itself, the current one first', () => {
    const [older, newer] = [generateSecretsKey(), generateSecretsKey()];
    const keyring = keyringOf(newer, older);
    const [current, previous] = keyring.referenceKeys;
    expect(keyring.referenceKeys).toHaveLength(2);
    expect(current).toHaveLength(32);
    expect(current?.equals(Buffer.from(newer, 'base64'))).toBe(false);
    expect(current?.equals(keyringOf(newer).referenceKeys[0] as Buffer)).toBe(true);
    expect(previous?.equals(keyringOf(older).referenceKeys[0] as Buffer)).toBe(true);
  });

  it('reads ONCE_SECRETS_KEY as comma-separated base64 keys of 32 bytes, naming what is wrong', () => {
    const [a, b] = [generateSecretsKey(), generateSecretsKey()];
    expect(parseSecretsKeys(` ${a} , ${b} `)).toHaveLength(2);
    expect(secretsKeysProblem(a)).toBeUndefined();
    expect(() => parseSecretsKeys('')).toThrow(InvalidSecretsKeyError);
    expect(() => parseSecretsKeys(Buffer.alloc(16).toString('base64'))).toThrow(InvalidSecretsKeyError);
    expect(secretsKeysProblem(`${a},not base64!`)).toMatch(/key 2/);
  });

  it('replaces every envelope in a text, and nothing else', () => {
    const keyring = keyringOf(generateSecretsKey());
    const body = JSON.stringify({ id: 'ep-1', secret: keyring.seal('whsec_one'), note: 'sealed:v1:zz' });
    const opened = replaceSealedSecrets(body, (sealed) => keyring.unseal(sealed));
    expect(JSON.parse(opened)).toEqual({ id: 'ep-1', secret: 'whsec_one', note: 'sealed:v1:zz' });
    expect(replaceSealedSecrets(body, () => '[redacted]')).toContain('"secret":"[redacted]"');
  });
});
