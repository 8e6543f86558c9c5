import { hash } from 'node:crypto';

/** The RFC 9562 name-space IDs. */
export const UUID_NAMESPACE_DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
export const UUID_NAMESPACE_URL = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const uuidToBytes = (uuid: string): Buffer => {
  if (!uuidPattern.test(uuid)) throw new TypeError(`not a UUID: ${uuid}`);
  return Buffer.from(uuid.replaceAll('-', ''), 'hex');
};

/** The last namespace asked for and its bytes: callers use one or two constant namespaces. */
let lastNamespace: { readonly uuid: string; readonly bytes: Buffer } | undefined;

const namespaceBytes = (uuid: string): Buffer => {
  if (lastNamespace?.uuid !== uuid) lastNamespace = { uuid, bytes: uuidToBytes(uuid) };
  return lastNamespace.bytes;
};

/** The RFC variant's hex digit for each value of the two low bits of the digest's 17th hex digit. */
const variantDigits = '89ab';

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
  const hex = hash(
    'sha1',
    Buffer.concat([namespaceBytes(namespace), typeof name === 'string' ? Buffer.from(name, 'utf8') : name]),
    'hex',
  );
  // The first 16 bytes with the version (5) in the 13th hex digit and the variant (10xx) in the 17th; the digest
  // as hex and the fields cut from it cost a third of setting the bits in a byte buffer.
  const variant = variantDigits.charAt(Number.parseInt(hex.charAt(16), 16) & 0x3);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
