import { z } from 'zod';
import { HttpProblem } from '../problems/index.js';

const chargeSchema = z.object({
  id: z.string(),
  reference: z.string(),
  amount: z.number(),
  currency: z.string(),
  status: z.enum(['succeeded', 'declined']),
  declineCode: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});
/** A charge as the gateway reports it. */
export type GatewayCharge = z.infer<typeof chargeSchema>;

export interface ChargeInput {
  /** The downstream idempotency key, derived from ours (`payment:<paymentId>`). */
  readonly key: string;
  readonly reference: string;
  readonly amount: number;
  readonly currency: string;
  readonly cardToken: string;
  /** Echoed back on the charge and on the gateway's webhooks (tenant and invoice, to route them). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The card gateway as the payment handler uses it: a keyed charge and the inquiry by reference. */
export interface GatewayClient {
  charge(input: ChargeInput): Promise<GatewayCharge>;
  /** Every charge the gateway made for this reference (none when it never saw the request). */
  inquire(reference: string): Promise<readonly GatewayCharge[]>;
}

const unavailable = (what: string, cause?: unknown): HttpProblem =>
  new HttpProblem('gateway-unavailable', { detail: what, cause });

/**
 * An HTTP client for apps/gateway-sim's contract. Every failure whose outcome is unknown (5xx, timeout, lost
 * connection, a body that is not a charge) becomes 503 `gateway-unavailable`: nothing is assumed, and the retry
 * asks the inquiry call first.
 *
 * @example
 * const gateway = createGatewayClient({ baseUrl: 'http://127.0.0.1:4010' });
 */
export const createGatewayClient = (options: { baseUrl: string; timeoutMs?: number }): GatewayClient => {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const call = async (path: string, init: RequestInit): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${options.baseUrl}${path}`, {
        ...init,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw unavailable(`the gateway did not answer ${init.method ?? 'GET'} ${path}`, error);
    }
    const text = await response.text().catch((error: unknown) => {
      throw unavailable('the gateway connection broke', error);
    });
    if (!response.ok) throw unavailable(`the gateway answered ${String(response.status)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw unavailable('the gateway answered something that is not JSON', error);
    }
  };
  return {
    charge: async ({ key, ...body }) => {
      const parsed = chargeSchema.safeParse(
        await call('/charges', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify(body),
        }),
      );
      if (!parsed.success) throw unavailable('the gateway answered something that is not a charge');
      return parsed.data;
    },
    inquire: async (reference) => {
      const parsed = z
        .object({ charges: z.array(chargeSchema) })
        .safeParse(await call(`/charges?reference=${encodeURIComponent(reference)}`, { method: 'GET' }));
      if (!parsed.success) throw unavailable('the gateway inquiry answered something unexpected');
      return parsed.data.charges;
    },
  };
};
