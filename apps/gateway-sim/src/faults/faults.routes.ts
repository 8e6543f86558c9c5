import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { gatewayFaultSchema } from './fault.js';
import type { FaultPlan } from './fault-plan.js';
import type { FaultAccess } from './fault-access.js';
import { refuseFaultControls } from './fault-access.js';

const armedFaultSchema = z.strictObject({
  target: z.enum(['charge', 'inquiry']).default('charge'),
  fault: gatewayFaultSchema,
  times: z.number().int().min(1).max(1000).default(1),
  /** Only charges whose metadata carries every one of these entries (an inquiry never matches). */
  when: z.record(z.string(), z.string()).optional(),
});

/** The admin endpoints that arm faults for upcoming calls: `POST /admin/faults`, `GET /admin/faults`, `DELETE /admin/faults`. */
export const faultsRoutes: FastifyPluginAsyncZod<{ faults: FaultPlan; access: FaultAccess }> = async (
  app,
  { faults, access },
) => {
  app.addHook('onRequest', async (request, reply) => refuseFaultControls(access, request, reply));
  app.post('/faults', { schema: { body: armedFaultSchema } }, async (request, reply) => {
    faults.arm(request.body.target, request.body.fault, request.body.times, request.body.when);
    return reply.code(201).send({ armed: faults.list() });
  });
  app.get('/faults', async () => ({ armed: faults.list() }));
  app.delete('/faults', async (_request, reply) => {
    faults.clear();
    return reply.code(204).send();
  });
};
