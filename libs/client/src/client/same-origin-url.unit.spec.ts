import { describe, expect, it } from 'vitest';
import { createMemoryIntentStorage } from '../storage/index.js';
import { createIdempotentClient } from './index.js';
import { sameOriginUrl } from './same-origin-url.js';

describe('request paths stay on the api origin', () => {
  it('resolves paths on the api and refuses any that would leave it', () => {
    expect(sameOriginUrl('/invoices?x=1', 'https://api.example/base/').href).toBe(
      'https://api.example/invoices?x=1',
    );
    for (const path of [
      'https://evil.example/invoices',
      '//evil.example/invoices',
      '/\\evil.example/invoices',
      '\\\\evil.example',
      'invoices',
      'javascript:alert(1)',
      '',
    ]) {
      expect(() => sameOriginUrl(path, 'https://api.example'), path).toThrow(TypeError);
    }
  });

  it('keeps the credentials home: the client refuses such an intent before storing or sending it', async () => {
    const sent: string[] = [];
    const storage = createMemoryIntentStorage();
    const client = createIdempotentClient({
      storage,
      baseUrl: 'https://api.example',
      headers: () => ({ authorization: 'Bearer once_secret' }),
      fetch: async (input) => {
        sent.push(String(input));
        return new Response('{}', { status: 201 });
      },
    });
    await expect(
      client.createIntent({ method: 'POST', path: '//evil.example/steal', body: {} }),
    ).rejects.toThrow(TypeError);
    expect(await storage.list()).toEqual([]);
    expect(sent).toEqual([]);
  });
});
