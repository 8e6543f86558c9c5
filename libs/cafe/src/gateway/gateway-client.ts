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

/** The gateway refused the card outright (a 4xx about the card): no charge exists, and none will. */
export interface GatewayRefusal {
  readonly status: 'refused';
  readonly httpStatus: number;
  /** The gateway's problem type (`card-refused`), or `http-<status>` when its body names none. */
  readonly code: string;
}

/**
 * The 4xx answers that are about the card and final: the gateway will never charge this request. Others (408, 409
 * for a charge still running under the key, 425, 429) say nothing about the outcome; 401/403/404 are about our
 * configuration and need a person, like an unknown outcome.
 */
const refusalStatuses: ReadonlySet<number> = new Set([400, 402, 422]);
const refusalBody = z.object({ type: z.string().optional() });

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
  /** The charge, or the gateway's refusal of the card; throws 503 `gateway-unavailable` when the outcome is unknown. */
  charge(input: ChargeInput): Promise<GatewayCharge | GatewayRefusal>;
  /** Every charge the gateway made for this reference (none when it never saw the request). */
  inquire(reference: string): Promise<readonly GatewayCharge[]>;
}

const parseOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** True for the error the client throws when the outcome is unknown (timeout, 5xx, a body that is not a charge). */
export const isUnknownGatewayOutcome = (error: unknown): error is HttpProblem =>
  error instanceof HttpProblem && error.type === 'gateway-unavailable';

const unavailable = (what: string, cause?: unknown): HttpProblem =>
  new HttpProblem('gateway-unavailable', { detail: what, cause });

/**
 * An HTTP client for apps/gateway-sim's contract. A 400, 402 or 422 about the card is the gateway's final refusal;
 * every failure whose outcome is unknown (other statuses, timeout, lost connection, a body that is not a charge)
 * becomes 503 `gateway-unavailable`: nothing is assumed, and the retry asks the inquiry call first.
 *
 * @example
 * const gateway = createGatewayClient({ baseUrl: 'http://127.0.0.1:4010' });
 */
export const createGatewayClient = (options: {
  baseUrl: string;
  timeoutMs?: number;
  /** The gateway's bearer secret (`ONCE_GATEWAY_API_TOKEN`), sent with every call. */
  apiToken?: string | undefined;
}): GatewayClient => {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const authorization: Record<string, string> = options.apiToken
    ? { authorization: `Bearer ${options.apiToken}` }
    : {};
  const call = async (
    path: string,
    init: RequestInit,
    refusable = false,
  ): Promise<{ readonly refused?: GatewayRefusal; readonly body?: unknown }> => {
    let response: Response;
    try {
      response = await fetch(`${options.baseUrl}${path}`, {
        ...init,
        headers: { ...authorization, ...(init.headers as Record<string, string> | undefined) },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw unavailable(`the gateway did not answer ${init.method ?? 'GET'} ${path}`, error);
    }
    const text = await response.text().catch((error: unknown) => {
      throw unavailable('the gateway connection broke', error);
    });
    if (refusable && refusalStatuses.has(response.status)) {
      const problem = refusalBody.safeParse(parseOrUndefined(text));
      const type = problem.success ? problem.data.type?.split('/').at(-1) : undefined;
      // A refusal of the idempotency key is about our request, not the card: its outcome stays unknown.
      if (!type?.startsWith('idempotency-key')) {
        const code = type ?? `http-${String(response.status)}`;
        return { refused: { status: 'refused', httpStatus: response.status, code } };
      }
    }
    if (!response.ok) throw unavailable(`the gateway answered ${String(response.status)}`);
    try {
      return { body: JSON.parse(text) as unknown };
    } catch (error) {
      throw unavailable('the gateway answered something that is not JSON', error);
    }
  };
  return {
    charge: async ({ key, ...body }) => {
      const answer = await call(
        '/charges',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify(body),
        },
        true,
      );
      if (answer.refused) return answer.refused;
      const parsed = chargeSchema.safeParse(answer.body);
      if (!parsed.success) throw unavailable('the gateway answered something that is not a charge');
      return parsed.data;
    },
    inquire: async (reference) => {
      const parsed = z
        .object({ charges: z.array(chargeSchema) })
        .safeParse(
          (await call(`/charges?reference=${encodeURIComponent(reference)}`, { method: 'GET' })).body,
        );
      if (!parsed.success) throw unavailable('the gateway inquiry answered something unexpected');
      return parsed.data.charges;
    },
  };
};
