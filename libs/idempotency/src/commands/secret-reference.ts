import { createHmac } from 'node:crypto';

const referencePrefix = 'hmac-sha256:';
const referenceShape = /^hmac-sha256:[0-9a-f]{64}$/;

/**
 * What the key log stores in place of a secret (a card token): `hmac-sha256:<hex>` of its UTF-8 text under a server
 * key. It names the secret without revealing it, and unlike a plain hash it cannot be brute-forced over a small space
 * (card numbers) without that key. A resumed handler sees the reference and must not use it as the secret.
 *
 * @example
 * secretReference('tok_visa', referenceKey); // 'hmac-sha256:…'
 */
export const secretReference = (secret: string, key: Uint8Array): string =>
  `${referencePrefix}${createHmac('sha256', key).update(secret, 'utf8').digest('hex')}`;

/** True for a value the key log wrote in place of a secret (see `secretReference`). */
export const isSecretReference = (value: unknown): boolean =>
  typeof value === 'string' && referenceShape.test(value);

/**
 * The command as the key log stores it: each named string field replaced by its reference under `key`. The live
 * command keeps its secrets; only a resume from the log sees the references.
 *
 * @example
 * withSecretsReferenced({ amount: 800, cardToken: 'tok_visa' }, ['cardToken'], referenceKey); // { amount: 800, cardToken: 'hmac-sha256:…' }
 */
export const withSecretsReferenced = (
  data: unknown,
  secretFields: readonly string[],
  key: Uint8Array,
): unknown => {
  if (secretFields.length === 0 || typeof data !== 'object' || data === null) return data;
  const stored: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const field of secretFields) {
    const value = stored[field];
    if (typeof value === 'string') stored[field] = secretReference(value, key);
  }
  return stored;
};
