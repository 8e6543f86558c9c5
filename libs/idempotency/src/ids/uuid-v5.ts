import { createHash } from 'node:crypto';

/** The RFC 9562 name-space IDs. */
export const UUID_NAMESPACE_DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
export const UUID_NAMESPACE_URL = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const uuidToBytes = (uuid: string): Buffer => {
  if (!uuidPattern.test(uuid)) throw new TypeError(`not a UUID: ${uuid}`);
  return Buffer.from(uuid.replaceAll('-', ''), 'hex');
};

const bytesToUuid = (bytes: Uint8Array): string => {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

/**
 * A name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 over the namespace's 16 bytes and the name's UTF-8 bytes.
 * The same namespace and name always give the same UUID.
 *
 * @param name the name, as text (UTF-8) or bytes.
 * @param namespace a UUID naming the name space.
 * @example
 * uuidV5('www.example.com', UUID_NAMESPACE_DNS); // '2ed6657d-e927-568b-95e1-2665a8aea6a2'
 */
export const uuidV5 = (name: string | Uint8Array, namespace: string): string => {
  const digest = createHash('sha1')
    .update(uuidToBytes(namespace))
    .update(typeof name === 'string' ? Buffer.from(name, 'utf8') : name)
    .digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return bytesToUuid(bytes);
};
