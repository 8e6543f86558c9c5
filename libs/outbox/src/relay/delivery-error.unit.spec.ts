import { describe, expect, it } from 'vitest';
import { classifyDeliveryError, statusClass, urlRefusalClass } from './delivery-error.js';
import { UncheckedHostError } from './pinned-agent.js';

const failure = (code: string, message = `connect ${code} 10.0.0.7:22`) =>
  Object.assign(new Error(message), { code });

describe('delivery error classes', () => {
  it('names socket, DNS, TLS and timeout failures by class, from the error or its causes', () => {
    expect(classifyDeliveryError(failure('ECONNREFUSED'))).toBe('connection-refused');
    expect(classifyDeliveryError(failure('ECONNRESET'))).toBe('connection-reset');
    expect(classifyDeliveryError(failure('EHOSTUNREACH'))).toBe('unreachable');
    expect(classifyDeliveryError(failure('ENOTFOUND'))).toBe('dns');
    expect(classifyDeliveryError(failure('UND_ERR_CONNECT_TIMEOUT'))).toBe('timeout');
    expect(classifyDeliveryError(failure('CERT_HAS_EXPIRED'))).toBe('tls');
    expect(classifyDeliveryError(failure('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('tls');
    expect(classifyDeliveryError(new TypeError('fetch failed', { cause: failure('ECONNREFUSED') }))).toBe(
      'connection-refused',
    );
    expect(classifyDeliveryError(new UncheckedHostError('elsewhere.example'))).toBe('blocked-address');
    expect(classifyDeliveryError(new DOMException('timed out', 'TimeoutError'))).toBe('timeout');
    expect(classifyDeliveryError(new Error('something else'))).toBe('network');
    expect(classifyDeliveryError('not even an error')).toBe('network');
  });

  it('names answers by their status class and refused URLs by their refusal', () => {
    expect([302, 404, 429, 500, 503].map(statusClass)).toEqual([
      'http-3xx',
      'http-4xx',
      'http-4xx',
      'http-5xx',
      'http-5xx',
    ]);
    expect(urlRefusalClass('blocked-address')).toBe('blocked-address');
    expect(urlRefusalClass('unresolvable')).toBe('dns');
    expect(urlRefusalClass('invalid-url')).toBe('invalid-url');
  });
});
