import type { FastifyServerOptions } from 'fastify';

/** Headers whose values must never reach a log line: credentials and webhook signatures. */
export const redactedHeaders = ['authorization', 'webhook-signature', 'gateway-fault-token', 'cookie'];

const redactPaths = redactedHeaders.flatMap((header) => [`headers["${header}"]`, `*.headers["${header}"]`]);

/**
 * The logger options with these headers redacted wherever a logged object carries `headers` (a backstop: request
 * logs carry no headers today). `false` and custom logger instances pass through.
 *
 * @example
 * Fastify({ logger: withRedaction({ level: 'info' }) });
 */
export const withRedaction = (logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] => {
  if (logger === false || logger === undefined) return false;
  const options = logger === true ? {} : logger;
  return { ...options, redact: { paths: redactPaths, censor: '[redacted]' } };
};
