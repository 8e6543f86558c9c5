import { createHash } from 'node:crypto';

const referencePrefix = 'sha256:';

/**
 * What the key log stores in place of a secret (a card token): `sha256:<hex>` of its UTF-8 text. It names the
 * secret without revealing it; a resumed handler sees the reference and must not use it as the secret.
 *
 * @example
 * secretReference('tok_visa'); // 'sha256:…'
 */
export const secretReference = (secret: string): string =>
  `${referencePrefix}${createHash('sha256').update(secret, 'utf8').digest('hex')}`;

/** True for a value the key log wrote in place of a secret (see `secretReference`). */
export const isSecretReference = (value: unknown): boolean =>
  typeof value === 'string' && /^sha256:[0-9a-f]{64}$/.test(value);

/**
 * The command as the key log stores it: each named string field replaced by its reference. The live command keeps
 * its secrets; only a resume from the log sees the references.
 *
 * @example
 * withSecretsReferenced({ amount: 800, cardToken: 'tok_visa' }, ['cardToken']); // { amount: 800, cardToken: 'sha256:…' }
 */
export const withSecretsReferenced = (data: unknown, secretFields: readonly string[]): unknown => {
  if (secretFields.length === 0 || typeof data !== 'object' || data === null) return data;
  const stored: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const field of secretFields) {
    const value = stored[field];
    if (typeof value === 'string') stored[field] = secretReference(value);
  }
  return stored;
};
