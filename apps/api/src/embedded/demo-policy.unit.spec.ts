import { describe, expect, it } from 'vitest';
import { isLoopbackHost, shouldSeedDemoKeys } from './demo-policy.js';

const publicHosts = ['0.0.0.0', '::', '192.168.1.10', 'cafe.example', '10.0.0.1'];

describe('demo keys', () => {
  it('are seeded by the embedded default on loopback only', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) {
      expect(shouldSeedDemoKeys({ host, embedded: true, demo: undefined })).toBe(true);
    }
    for (const host of publicHosts) {
      expect(isLoopbackHost(host)).toBe(false);
      expect(shouldSeedDemoKeys({ host, embedded: true, demo: undefined })).toBe(false);
    }
    expect(shouldSeedDemoKeys({ host: '127.0.0.1', embedded: false, demo: undefined })).toBe(false);
  });

  it('follow an explicit flag on loopback', () => {
    expect(shouldSeedDemoKeys({ host: '127.0.0.1', embedded: false, demo: true })).toBe(true);
    expect(shouldSeedDemoKeys({ host: '127.0.0.1', embedded: true, demo: false })).toBe(false);
  });

  it('are never seeded off loopback, even when asked for', () => {
    for (const host of publicHosts) {
      expect(shouldSeedDemoKeys({ host, embedded: true, demo: true })).toBe(false);
      expect(shouldSeedDemoKeys({ host, embedded: false, demo: true })).toBe(false);
    }
  });
});
