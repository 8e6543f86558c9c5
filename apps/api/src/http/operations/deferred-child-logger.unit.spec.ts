import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import type { FastifyServerOptions } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { deferredChildLogger } from './deferred-child-logger.js';

/** An app logging at `level` into `lines`, whose route logs as the api's plugins do (a further child, then lines). */
const loggingApp = (level: string, childLoggerFactory?: FastifyServerOptions['childLoggerFactory']) => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({
    logger: { level, stream },
    logController: new LogController({ disableRequestLogging: true }),
    ...(childLoggerFactory === undefined ? {} : { childLoggerFactory }),
  });
  app.addHook('onRequest', async (request) => {
    request.log = request.log.child({ keyId: 'key_123' });
  });
  app.get('/things', async (request) => {
    request.log.debug({ step: 'debug' }, 'not at info');
    request.log.info({ step: 'info' }, 'a line');
    request.log.warn('a warning %s', 'formatted');
    return { ok: true };
  });
  return { app, lines };
};

const withoutTime = (lines: readonly Record<string, unknown>[]) =>
  lines.map(({ time: _time, ...line }) => line);

describe('deferredChildLogger', () => {
  it('writes the lines the default child logger writes, with the request id and later bindings', async () => {
    const deferred = loggingApp('info', deferredChildLogger);
    const eager = loggingApp('info');
    for (const { app } of [deferred, eager]) {
      const response = await app.inject({ method: 'GET', url: '/things' });
      expect(response.statusCode).toBe(200);
      await app.close();
    }
    expect(deferred.lines).toHaveLength(2);
    expect(deferred.lines[0]).toMatchObject({
      reqId: 'req-1',
      keyId: 'key_123',
      step: 'info',
      msg: 'a line',
    });
    expect(deferred.lines[1]).toMatchObject({ reqId: 'req-1', keyId: 'key_123', msg: 'a warning formatted' });
    expect(withoutTime(deferred.lines)).toEqual(withoutTime(eager.lines));
  });

  it('builds no child for a request that writes nothing at the enabled level', async () => {
    const { app, lines } = loggingApp('error', deferredChildLogger);
    await app.ready();
    const child = vi.spyOn(app.log, 'child');
    const response = await app.inject({ method: 'GET', url: '/things' });
    await app.close();
    expect(response.statusCode).toBe(200);
    expect(lines).toEqual([]);
    expect(child).not.toHaveBeenCalled();
  });

  it('builds the child once a request writes, and keeps its level changes', async () => {
    const { app, lines } = loggingApp('warn', deferredChildLogger);
    app.get('/verbose', async (request) => {
      request.log.level = 'debug';
      request.log.debug('now written');
      return { ok: true };
    });
    await app.ready();
    const child = vi.spyOn(app.log, 'child');
    await app.inject({ method: 'GET', url: '/verbose' });
    await app.close();
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([expect.objectContaining({ reqId: 'req-1', msg: 'now written', level: 20 })]);
    expect(app.log.level).toBe('warn');
  });
});
