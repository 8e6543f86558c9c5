import fp from 'fastify-plugin';
import type { GlobalPosition } from '@once/event-store';
import { positionHeader, positionToken } from './read-your-writes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's answers carry `Once-Position` when its request wrote, though it is no command (a command's answers
     * always may): the OpenAPI document declares the header on them.
     */
    readonly writesPosition?: boolean;
  }
  interface FastifyInstance {
    /** The longest a read waits for `Once-Min-Position` (ms). */
    readWaitMs: number;
  }
  interface FastifyRequest {
    /**
     * Where this request's own write (or the write it replays) sits in the global order, once known: the engine's
     * outcome carries it for commands, the inbox's for webhooks.
     */
    writePosition: GlobalPosition | undefined;
  }
}

/**
 * Read-your-writes, the write half: a response whose request wrote, or replayed a write, carries `Once-Position`,
 * whatever its status (a 503 after a partial effect has a position too). The read half is `readYourWrites`.
 */
export const consistencyPlugin = fp<{ readWaitMs: number }>(
  async (app, { readWaitMs }) => {
    app.decorate('readWaitMs', readWaitMs);
    app.decorateRequest('writePosition', undefined);
    app.addHook('onSend', (request, reply, payload, done) => {
      if (request.writePosition) void reply.header(positionHeader, positionToken(request.writePosition));
      done(null, payload);
    });
  },
  { name: 'once-consistency', fastify: '5.x' },
);
