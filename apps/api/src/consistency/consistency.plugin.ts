import fp from 'fastify-plugin';
import { positionHeader, positionToken } from './read-your-writes.js';
import { runWithWriteCapture } from './write-position.js';
import type { WritePositionCapture } from './write-position.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The longest a read waits for `Once-Min-Position` (ms). */
    readWaitMs: number;
  }
  interface FastifyRequest {
    /** Where this request's own write (or the write it replays) sits in the global order, once known. */
    writeCapture: WritePositionCapture | undefined;
  }
}

/**
 * Read-your-writes, the write half: every request runs with a capture of its appends (see
 * `capturingWritePositions`), and a response whose request wrote, or replayed a write, carries `Once-Position`,
 * whatever its status (a 503 after a partial effect has a position too). The read half is `readYourWrites`.
 */
export const consistencyPlugin = fp<{ readWaitMs: number }>(
  async (app, { readWaitMs }) => {
    app.decorate('readWaitMs', readWaitMs);
    app.decorateRequest('writeCapture', undefined);
    // After the body is parsed: the handler, and all it starts, runs inside the capture.
    app.addHook('preHandler', (request, _reply, done) => {
      const capture: WritePositionCapture = { position: undefined };
      request.writeCapture = capture;
      runWithWriteCapture(capture, done);
    });
    app.addHook('onSend', async (request, reply) => {
      const position = request.writeCapture?.position;
      if (position) void reply.header(positionHeader, positionToken(position));
    });
  },
  { name: 'once-consistency', fastify: '5.x' },
);
