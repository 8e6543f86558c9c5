import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { withRedaction } from './log-redaction.js';

describe('log redaction', () => {
  it('censors authorization and webhook signatures wherever a log line carries headers', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const options = withRedaction({ level: 'info', stream });
    const app = Fastify({ logger: options === false ? false : options });
    app.log.info({
      req: { headers: { authorization: 'Bearer once_secret', 'webhook-signature': 'v1,c2lnbg==' } },
    });
    app.log.info({ headers: { authorization: 'Bearer once_secret', accept: 'application/json' } });
    await app.close();
    const text = lines.join('');
    expect(text).not.toContain('once_secret');
    expect(text).not.toContain('c2lnbg==');
    expect(text).toContain('[redacted]');
    expect(text).toContain('application/json');
    expect(withRedaction(false)).toBe(false);
  });
});
