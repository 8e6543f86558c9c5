import type { AddressInfo } from 'node:net';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { describeHttpAdapterContract } from '../testing/http-adapter-contract.js';
import { createIdempotencyExpress } from './idempotency-express.js';

describeHttpAdapterContract('the Express 5 adapter', async ({ engine, handlers, commands }) => {
  const app = express();
  const idempotency = createIdempotencyExpress({ engine, handlers });
  const authenticate = (req: Request, _res: Response, next: NextFunction) => {
    const actor = req.get('x-test-actor');
    if (actor !== undefined) Reflect.set(req, 'principal', { tenantId: 'tenant-1', actorId: actor });
    next();
  };
  app.use(express.json(), authenticate);
  app.post('/counters/:id/increments', idempotency.command({ command: commands.increment }));
  app.post('/failing/:id', idempotency.command({ command: commands.failing }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
});
