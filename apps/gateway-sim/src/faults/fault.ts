import { z } from 'zod';

/**
 * A fault the gateway plays on one request:
 * - `latency`: answer normally, `ms` later;
 * - `error`: answer `status` (5xx) without charging;
 * - `refuse`: refuse the card outright with `status` (4xx, problem `card-refused`) without charging: a definitive answer;
 * - `hang`: never answer and never charge (the caller times out);
 * - `lost-response`: charge, then destroy the connection before any response byte (charged, but the caller cannot know).
 */
export const gatewayFaultSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('latency'), ms: z.number().int().min(0).max(60_000) }),
  z.strictObject({ kind: z.literal('error'), status: z.number().int().min(500).max(599) }),
  z.strictObject({ kind: z.literal('refuse'), status: z.number().int().min(400).max(499) }),
  z.strictObject({ kind: z.literal('hang') }),
  z.strictObject({ kind: z.literal('lost-response') }),
]);
export type GatewayFault = z.infer<typeof gatewayFaultSchema>;

/** Which call a fault applies to. */
export type FaultTarget = 'charge' | 'inquiry';

/** The request header that injects a fault into that one request, e.g. `Gateway-Fault: latency=250`. */
export const faultHeader = 'gateway-fault';

/**
 * Reads a `Gateway-Fault` header value: `hang`, `lost-response`, `latency=<ms>`, `error=<status>` or `refuse=<status>`.
 * Returns undefined for anything else, so a typo never silently charges differently than asked.
 *
 * @example
 * parseFaultHeader('error=503'); // { kind: 'error', status: 503 }
 */
export const parseFaultHeader = (value: string): GatewayFault | undefined => {
  const [name, argument] = value.trim().split('=', 2);
  const number = argument === undefined ? undefined : Number(argument);
  const candidate =
    name === 'latency'
      ? { kind: name, ms: number }
      : name === 'error' || name === 'refuse'
        ? { kind: name, status: number }
        : { kind: name };
  const parsed = gatewayFaultSchema.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
};
