import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const keyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;
const envelopePrefix = 'sealed:v1:';
const keyIdPattern = '[0-9a-f]{8}';
const payloadPattern = '[A-Za-z0-9_-]{38,}';
const envelope = new RegExp(`^${envelopePrefix}(${keyIdPattern}):(${payloadPattern})$`);
const envelopesInText = new RegExp(`${envelopePrefix}${keyIdPattern}:${payloadPattern}`, 'g');

/** A server key given to `ONCE_SECRETS_KEY` that is not the base64 of 32 bytes, or a list with none. */
export class InvalidSecretsKeyError extends Error {
  constructor(reason: string) {
    super(`not a secrets key: ${reason}`);
    this.name = 'InvalidSecretsKeyError';
  }
}

/** A sealed secret that cannot be opened: its key is not in the keyring, or the envelope was altered. */
export class UnsealError extends Error {
  constructor(
    reason: string,
    readonly keyId: string | undefined,
    options?: ErrorOptions,
  ) {
    super(`cannot unseal the secret: ${reason}`, options);
    this.name = 'UnsealError';
  }
}

/**
 * The server's keys for secrets at rest. `seal` encrypts with the current key (AES-256-GCM); `unseal` opens an
 * envelope sealed with any key of the ring (the current one or an older one kept for decryption); `reference` names
 * a secret that is never kept, by an HMAC under a subkey of its own (it cannot be brute-forced without the key).
 */
export interface SecretsKeyring {
  /** The id of the key new envelopes are sealed with (8 hex digits, derived from the key). */
  readonly currentKeyId: string;
  /** The ids of every key that can unseal, the current one first. */
  readonly keyIds: readonly string[];
  /** `sealed:v1:<key id>:<base64url of iv, ciphertext and tag>`: a fresh random iv every time. */
  seal(secret: string): string;
  /** The secret an envelope holds. Throws `UnsealError` for an unknown key or an altered envelope. */
  unseal(sealed: string): string;
  /**
   * The keys references of secrets that are never kept (card tokens) are an HMAC-SHA256 under, one derived from each
   * server key, the current one first (a reference made under an older key is still recognised).
   */
  readonly referenceKeys: readonly Buffer[];
}

const subkey = (key: Buffer, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `once/${purpose}`, keyBytes));

const keyIdOf = (key: Buffer): string => subkey(key, 'key-id').subarray(0, 4).toString('hex');

const additionalData = (keyId: string): Buffer => Buffer.from(`${envelopePrefix}${keyId}`, 'utf8');

/**
 * The keys of an `ONCE_SECRETS_KEY` value: comma-separated base64 of 32 random bytes each, the current key first, then
 * older keys that still unseal what they sealed.
 *
 * @throws InvalidSecretsKeyError when the list is empty or a key is not the base64 of 32 bytes.
 * @example
 * const keys = parseSecretsKeys(process.argv[2] ?? generateSecretsKey());
 */
export const parseSecretsKeys = (text: string): readonly Buffer[] => {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) throw new InvalidSecretsKeyError('no key given');
  return parts.map((part, index) => {
    const key = /^[A-Za-z0-9+/]+={0,2}$/.test(part) ? Buffer.from(part, 'base64') : Buffer.alloc(0);
    if (key.length !== keyBytes) {
      throw new InvalidSecretsKeyError(
        `key ${String(index + 1)} is not the base64 of ${String(keyBytes)} bytes (generate one with: openssl rand -base64 32)`,
      );
    }
    return key;
  });
};

/**
 * Why an `ONCE_SECRETS_KEY` value is refused, or undefined when it is a valid list of keys.
 * @example secretsKeysProblem('not base64'); // 'not a secrets key: key 1 is not the base64 of 32 bytes …'
 */
export const secretsKeysProblem = (text: string): string | undefined => {
  try {
    parseSecretsKeys(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
};

/**
 * A new server key as `ONCE_SECRETS_KEY` takes it: the base64 of 32 random bytes.
 * @example const key = generateSecretsKey(); // 'q3Vd…='
 */
export const generateSecretsKey = (): string => randomBytes(keyBytes).toString('base64');

/**
 * True when `value` has the shape of a sealed secret (`sealed:v1:<key id>:…`).
 * @example isSealedSecret(keyring.seal('whsec_…')); // true
 */
export const isSealedSecret = (value: unknown): value is string =>
  typeof value === 'string' && envelope.test(value);

/**
 * `text` with every sealed secret in it replaced by `replace(envelope)`: the way a stored answer is opened for its
 * caller (`keyring.unseal`) or redacted for anyone else.
 *
 * @example
 * replaceSealedSecrets(storedBody, () => '[redacted]');
 */
export const replaceSealedSecrets = (text: string, replace: (sealed: string) => string): string =>
  text.replace(envelopesInText, (sealed) => replace(sealed));

/**
 * The keyring of the given server keys (the current key first, see `parseSecretsKeys`).
 *
 * @example
 * const keyring = createSecretsKeyring(parseSecretsKeys(env.ONCE_SECRETS_KEY));
 * const sealed = keyring.seal(generateWebhookSecret());
 * keyring.unseal(sealed); // 'whsec_…'
 */
export const createSecretsKeyring = (keys: readonly Buffer[]): SecretsKeyring => {
  const [current] = keys;
  if (current === undefined) throw new InvalidSecretsKeyError('no key given');
  const sealingKeys = new Map<string, Buffer>();
  const referenceKeys: Buffer[] = [];
  for (const key of keys) {
    if (key.length !== keyBytes) throw new InvalidSecretsKeyError(`a key has ${String(key.length)} bytes`);
    const id = keyIdOf(key);
    if (sealingKeys.has(id)) continue;
    sealingKeys.set(id, subkey(key, 'seal/v1'));
    referenceKeys.push(subkey(key, 'reference/v1'));
  }
  const currentKeyId = keyIdOf(current);
  const currentSealingKey = sealingKeys.get(currentKeyId) as Buffer;

  return {
    currentKeyId,
    keyIds: [...sealingKeys.keys()],
    referenceKeys,
    seal: (secret) => {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', currentSealingKey, iv);
      cipher.setAAD(additionalData(currentKeyId));
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      const payload = Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
      return `${envelopePrefix}${currentKeyId}:${payload}`;
    },
    unseal: (sealed) => {
      const match = envelope.exec(sealed);
      if (!match) throw new UnsealError('it is not a sealed secret', undefined);
      const [, keyId = '', payloadText = ''] = match;
      const key = sealingKeys.get(keyId);
      if (key === undefined) {
        throw new UnsealError(`it was sealed with key ${keyId}, which ONCE_SECRETS_KEY does not hold`, keyId);
      }
      const payload = Buffer.from(payloadText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, payload.subarray(0, ivBytes));
      decipher.setAAD(additionalData(keyId));
      decipher.setAuthTag(payload.subarray(payload.length - tagBytes));
      try {
        return Buffer.concat([
          decipher.update(payload.subarray(ivBytes, payload.length - tagBytes)),
          decipher.final(),
        ]).toString('utf8');
      } catch (error) {
        throw new UnsealError(`the envelope sealed with key ${keyId} was altered`, keyId, { cause: error });
      }
    },
  };
};
