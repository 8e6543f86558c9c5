import { describe, expect, it } from 'vitest';
import { onceEnvironment } from './once-environment.js';

const trustProxy = onceEnvironment.shape.ONCE_TRUST_PROXY;

describe('ONCE_TRUST_PROXY', () => {
  it('is off when unset or empty', () => {
    expect(trustProxy.parse(undefined)).toBeUndefined();
    expect(trustProxy.parse('')).toBeUndefined();
  });

  it('reads a hop count or a list of addresses, ranges and proxy-addr names', () => {
    expect(trustProxy.parse('1')).toBe(1);
    expect(trustProxy.parse('10.0.0.0/8, 192.168.1.10,loopback,fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.10',
      'loopback',
      'fd00::/8',
    ]);
  });

  it('refuses anything else, trusting every proxy included', () => {
    for (const value of ['true', '0', '33', 'proxy.example', '10.0.0.0/33', '10.0.0.1/8/8', '*']) {
      expect(trustProxy.safeParse(value).success).toBe(false);
    }
  });
});
