import { parseJson } from '@once/canonical-json';
import { gatewayEventSchema, HttpProblem } from '@once/cafe';
import type { GatewayEvent } from '@once/cafe';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a verified gateway webhook's bytes: UTF-8, strict JSON (`parseJson`: no duplicate keys, bounded nesting),
 * then the event's schema. Runs only after the signature verified, so a caller without the secret never learns
 * what the schema expects. Throws the 400 problem (`invalid-json` or `invalid-request`) otherwise.
 *
 * @example
 * const event = readGatewayEvent(Buffer.from('{"id":"evt_1",…}'));
 */
export const readGatewayEvent = (bytes: Uint8Array): GatewayEvent => {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpProblem('invalid-json', {
      detail: 'the body is not UTF-8',
      extensions: { reason: 'utf-8' },
    });
  }
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const { code, data } = parsed.error;
    throw new HttpProblem('invalid-json', {
      detail: `${code} at ${data.pointer || '/'}`,
      extensions: { reason: code, pointer: data.pointer },
    });
  }
  const event = gatewayEventSchema.safeParse(parsed.value);
  if (!event.success) {
    throw new HttpProblem('invalid-request', {
      detail: "the request's body is invalid",
      extensions: {
        errors: event.error.issues.map((issue) => ({
          pointer: issue.path.map((segment) => `/${String(segment)}`).join(''),
          detail: issue.message,
        })),
      },
    });
  }
  return event.data;
};
