import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveId } from './derive-id.js';
import { UUID_NAMESPACE_DNS, UUID_NAMESPACE_URL, uuidV5 } from './uuid-v5.js';

describe('uuidV5', () => {
  it('matches the RFC 9562 appendix A.4 test vector', () => {
    expect(uuidV5('www.example.com', UUID_NAMESPACE_DNS)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('matches widely published vectors (Python uuid.uuid5)', () => {
    expect(uuidV5('python.org', UUID_NAMESPACE_DNS)).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    expect(uuidV5('http://python.org/', UUID_NAMESPACE_URL)).toBe('4c565f0d-3f5a-5890-b41b-20cf47701c5e');
  });

  it('always sets version 5 and the RFC variant', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        expect(uuidV5(name, UUID_NAMESPACE_URL)).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
      }),
    );
  });

  it('is the RFC construction byte for byte: SHA-1 of namespace and name, version and variant bits set', () => {
    const byTheRfc = (name: string | Uint8Array, namespace: string): string => {
      const bytes = createHash('sha1')
        .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
        .update(typeof name === 'string' ? Buffer.from(name, 'utf8') : name)
        .digest()
        .subarray(0, 16);
      bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
      bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array()),
        fc.constantFrom(UUID_NAMESPACE_DNS, UUID_NAMESPACE_URL, '9A1F0000-0000-4000-8000-00000000002A'),
        (name, namespace) => {
          expect(uuidV5(name, namespace)).toBe(byTheRfc(name, namespace));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(TypeError);
  });
});

describe('deriveId', () => {
  const scope = { tenantId: 'tenant-1', actorId: 'actor-1' };

  it('is deterministic', () => {
    expect(deriveId(scope, 'key-12345678', 'invoice-1', 0)).toBe(
      deriveId(scope, 'key-12345678', 'invoice-1', 0),
    );
  });

  it('derives the ids it always has: stored events and entities are found under them', () => {
    expect(deriveId(scope, 'key-12345678', 'invoice-1', 0)).toBe('ae369149-58ef-5074-8c6a-e80669266d4a');
    expect(deriveId(scope, 'key-12345678', 'payment', 3)).toBe('a574e3d9-0da5-5d15-aea0-02c3d22712eb');
  });

  it('differs in every component', () => {
    const base = deriveId(scope, 'key-12345678', 'invoice-1', 0);
    expect(deriveId({ ...scope, tenantId: 'tenant-2' }, 'key-12345678', 'invoice-1', 0)).not.toBe(base);
    expect(deriveId({ ...scope, actorId: 'actor-2' }, 'key-12345678', 'invoice-1', 0)).not.toBe(base);
    expect(deriveId(scope, 'key-87654321', 'invoice-1', 0)).not.toBe(base);
    expect(deriveId(scope, 'key-12345678', 'invoice-2', 0)).not.toBe(base);
    expect(deriveId(scope, 'key-12345678', 'invoice-1', 1)).not.toBe(base);
  });

  it('cannot be made to collide by moving a separator between components', () => {
    expect(deriveId({ tenantId: 'a:b', actorId: 'c' }, 'key-12345678', 's', 0)).not.toBe(
      deriveId({ tenantId: 'a', actorId: 'b:c' }, 'key-12345678', 's', 0),
    );
  });
});
