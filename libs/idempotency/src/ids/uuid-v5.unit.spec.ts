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
