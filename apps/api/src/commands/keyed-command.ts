import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseIdempotencyKeyHeader } from '@once/idempotency';
import type { ExecuteOutcome, StoredResponse } from '@once/idempotency';
import type { IdempotencyOutcome } from '../plugins/observability.plugin.js';
import { HttpProblem } from '../problems/problem.js';
import { problemTypeUri } from '../problems/problem-catalog.js';
import { runWithoutIdempotency } from './run-without-idempotency.js';

const describedBy = (type: string) => `<${problemTypeUri(type)}>; rel="describedby"; type="text/html"`;

const sendStored = (reply: FastifyReply, response: StoredResponse, replayed: boolean): FastifyReply => {
  void reply.code(response.status).headers(response.headers);
  if (replayed) void reply.header('idempotent-replayed', 'true');
  return reply.send(response.body);
};

const outcomeLabel = (outcome: ExecuteOutcome): IdempotencyOutcome => {
  switch (outcome.kind) {
    case 'first':
      return 'first';
    case 'replay':
      return 'replay';
    case 'in-flight':
      return 'in_flight';
    case 'reused':
      return 'reused';
    case 'released':
      return 'released';
    case 'unavailable':
      return 'unavailable';
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
};

/** The header's lines as sent: Node joins repeated lines with ", ", which would hide them as a list. */
const idempotencyKeyLines = (request: FastifyRequest): string | string[] | undefined => {
  const lines = request.raw.headersDistinct['idempotency-key'];
  return lines === undefined || lines.length > 1 ? lines : lines[0];
};

/**
 * Runs a command route through the idempotency engine with the route's handler from `app.commands`: reads the `Idempotency-Key` (missing → 400 with a
 * `describedby` link, malformed → 400), executes the handler once per (tenant, actor, key), and answers the
 * outcome: the first response, a byte-identical replay with `Idempotent-Replayed: true`, 409 in flight, 422 reused,
 * 503 retryable. A response after a write, or replaying one, carries its `Once-Position` (consistency plugin). With the benchmark-only plain mode the handler runs with no idempotency at all.
 */
export const runKeyedCommand = async (
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> => {
  const header = parseIdempotencyKeyHeader(idempotencyKeyLines(request));
  if (!header.ok) {
    throw new HttpProblem(
      header.problem,
      `Idempotency-Key: ${header.reason}`,
      { reason: header.reason },
      {
        link: describedBy(header.problem),
      },
    );
  }
  const app = request.server;
  const route = request.routeOptions.url ?? request.url;
  const handler = app.commands.handlerFor({ method: request.method, route, body: request.body });
  if (!handler) throw new Error(`no command handler for ${request.method} ${route}`);
  const commandRequest = {
    method: request.method,
    route,
    // Fastify's params object has no prototype; the fingerprint wants a plain JSON object.
    params: typeof request.params === 'object' && request.params !== null ? { ...request.params } : {},
    body: request.body ?? null,
  };

  if (app.idempotencyMode === 'off') {
    const response = await runWithoutIdempotency(app.eventStore, handler, {
      scope: request.principal,
      key: header.key,
      request: commandRequest,
      requestedAt: new Date(),
    });
    const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? null);
    return reply
      .code(response.status)
      .headers({ 'content-type': 'application/json; charset=utf-8', ...response.headers })
      .send(body);
  }

  const outcome = await app.commandEngine.execute({
    scope: request.principal,
    key: header.key,
    request: commandRequest,
    handler,
  });
  request.idempotencyOutcome = outcomeLabel(outcome);
  switch (outcome.kind) {
    case 'first':
      return sendStored(reply, outcome.response, false);
    case 'replay':
      // Nothing was appended now: the position is where the key completed, which the engine read anyway. It is safe
      // to wait for: a projection that reached it has applied the whole write (global pages end only at a write's end).
      if (request.writeCapture && outcome.position) request.writeCapture.position = outcome.position;
      return sendStored(reply, outcome.response, true);
    case 'in-flight':
      throw new HttpProblem(
        'idempotency-key-in-flight',
        undefined,
        { retryAfterSeconds: outcome.retryAfterSeconds },
        {
          'retry-after': String(outcome.retryAfterSeconds),
          link: describedBy('idempotency-key-in-flight'),
        },
      );
    case 'reused':
      throw new HttpProblem(
        'idempotency-key-reused',
        `the key was first used for ${outcome.original.method} ${outcome.original.route} with another body`,
        {},
        { link: describedBy('idempotency-key-reused') },
      );
    case 'released':
      if (outcome.response) return sendStored(reply, outcome.response, false);
      throw outcome.error instanceof Error
        ? outcome.error
        : new Error('the command failed', { cause: outcome.error });
    case 'unavailable': {
      const retryAfter = { 'retry-after': String(outcome.retryAfterSeconds) };
      if (outcome.error instanceof HttpProblem) {
        throw new HttpProblem(outcome.error.type, outcome.error.detail, outcome.error.extensions, retryAfter);
      }
      if (outcome.error)
        request.log.warn({ err: outcome.error, reason: outcome.reason }, 'command unavailable');
      throw new HttpProblem(
        'service-unavailable',
        `retry with the same key (${outcome.reason})`,
        {},
        retryAfter,
      );
    }
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
};
