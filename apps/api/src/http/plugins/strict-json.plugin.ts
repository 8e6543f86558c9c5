import fp from 'fastify-plugin';
import { parseJson } from '@once/canonical-json';
import { HttpProblem } from '@once/cafe';

export interface StrictJsonOptions {
  readonly bodyLimit: number;
}

/**
 * Replaces Fastify's JSON parser with `parseJson` from `@once/canonical-json`: duplicate keys, nesting deeper than
 * 64 and unpaired surrogates are refused (400 `invalid-json`) instead of silently accepted.
 */
export const strictJsonPlugin = fp<StrictJsonOptions>(
  async (app, { bodyLimit }) => {
    // JSON only: text/plain and everything else is 415 unsupported-media-type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      const parsed = parseJson(text);
      if (parsed.ok) {
        done(null, parsed.value);
        return;
      }
      const { code, data } = parsed.error;
      done(
        new HttpProblem('invalid-json', {
          detail: `${code} at ${data.pointer || '/'}`,
          extensions: {
            reason: code,
            pointer: data.pointer,
          },
        }),
        undefined,
      );
    });
  },
  { name: 'once-strict-json', fastify: '5.x' },
);
