import type { WebhookUrlRefusal } from '@once/webhooks';

/**
 * Why an attempt failed, coarsely: what the tenant who owns the endpoint sees in its delivery attempts. Never the
 * raw error (an errno with an address and port would make the relay a port scanner for whoever registers a URL).
 */
export type DeliveryErrorClass =
  | 'timeout'
  | 'connection-refused'
  | 'connection-reset'
  | 'unreachable'
  | 'dns'
  | 'tls'
  | 'blocked-address'
  | 'invalid-url'
  | 'secret-unavailable'
  | 'network'
  | 'http-3xx'
  | 'http-4xx'
  | 'http-5xx';

/** The error classes of a URL the relay refused to deliver to. */
export const urlRefusalClass = (refusal: WebhookUrlRefusal): DeliveryErrorClass =>
  refusal === 'unresolvable' ? 'dns' : refusal;

/** The class of an answer that is not a 2xx. */
export const statusClass = (statusCode: number): DeliveryErrorClass =>
  statusCode >= 500 ? 'http-5xx' : statusCode >= 400 ? 'http-4xx' : 'http-3xx';

const codesOf = (error: unknown): string[] => {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = current.cause;
  }
  return codes;
};

const byCode: Readonly<Record<string, DeliveryErrorClass>> = {
  ECONNREFUSED: 'connection-refused',
  ECONNRESET: 'connection-reset',
  EPIPE: 'connection-reset',
  UND_ERR_SOCKET: 'connection-reset',
  UND_ERR_CLOSED: 'connection-reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ERR_WEBHOOK_UNCHECKED_HOST: 'blocked-address',
};

const isTlsCode = (code: string): boolean =>
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/.test(
    code,
  );

/**
 * The class of an error a delivery's request threw (its `code`, or its causes'); `network` when none is known.
 *
 * @example
 * classifyDeliveryError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:22'), { code: 'ECONNREFUSED' })); // 'connection-refused'
 */
export const classifyDeliveryError = (error: unknown): DeliveryErrorClass => {
  for (const code of codesOf(error)) {
    const known = byCode[code];
    if (known) return known;
    if (isTlsCode(code)) return 'tls';
  }
  return error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network';
};
