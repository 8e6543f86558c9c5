import { randomBytes } from 'node:crypto';

const prefix = 'whsec_';
const minimumBytes = 24;
const maximumBytes = 64;
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A string that is not a Standard Webhooks secret (`whsec_` + base64 of 24 to 64 bytes). */
export class InvalidWebhookSecretError extends Error {
  constructor(reason: string) {
    super(`not a webhook secret: ${reason}`);
    this.name = 'InvalidWebhookSecretError';
  }
}

/**
 * A new Standard Webhooks secret: `whsec_` followed by the base64 of `bytes` random bytes (24 to 64; 32 by default).
 *
 * @example
 * const secret = generateWebhookSecret(); // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw…'
 */
export const generateWebhookSecret = (bytes = 32): string => {
  if (!Number.isInteger(bytes) || bytes < minimumBytes || bytes > maximumBytes) {
    throw new RangeError(`a webhook secret has ${String(minimumBytes)} to ${String(maximumBytes)} bytes`);
  }
  return `${prefix}${randomBytes(bytes).toString('base64')}`;
};

/**
 * The signing key of a `whsec_` secret: its decoded bytes (the HMAC key is these bytes, never the text).
 *
 * @throws InvalidWebhookSecretError when the prefix, the base64 or the length is wrong.
 * @example
 * const key = decodeWebhookSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'); // Buffer of 24 bytes
 */
export const decodeWebhookSecret = (secret: string): Buffer => {
  if (!secret.startsWith(prefix)) throw new InvalidWebhookSecretError(`it does not start with ${prefix}`);
  const encoded = secret.slice(prefix.length);
  if (!base64.test(encoded) || encoded.length % 4 !== 0) {
    throw new InvalidWebhookSecretError('the part after the prefix is not base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < minimumBytes || key.length > maximumBytes) {
    throw new InvalidWebhookSecretError(
      `it decodes to ${String(key.length)} bytes, not ${String(minimumBytes)} to ${String(maximumBytes)}`,
    );
  }
  return key;
};

/**
 * True when `secret` is a well-formed `whsec_` secret.
 * @example isWebhookSecret(generateWebhookSecret()) // true
 */
export const isWebhookSecret = (secret: string): boolean => {
  try {
    decodeWebhookSecret(secret);
    return true;
  } catch {
    return false;
  }
};
