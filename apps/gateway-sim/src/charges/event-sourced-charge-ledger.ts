import { createHash } from 'node:crypto';
import type { EventStore } from '@once/event-store';
import { accept, createIdempotencyEngine, defineDecideHandler, reject } from '@once/idempotency';
import type { IdempotencyEngine } from '@once/idempotency';
import { chargeRequestSchema, chargeSchema, decideCharge } from './charge.js';
import type { Charge } from './charge.js';
import type { ChargeLedger } from './charge-ledger.js';

/** The gateway's own tenant in the key log: its keys never meet the api's. */
const GATEWAY_TENANT = '6a7e0000-0000-4000-8000-00000000ca7e';

/** All charges a merchant made with one reference: the stream the inquiry call reads. */
export const chargesByReferenceStream = (merchant: string, reference: string): string =>
  `gateway-charges-${createHash('sha256')
    .update(JSON.stringify([merchant, reference]))
    .digest('hex')}`;

/** A merchant's charge request, as the gateway's key log records it (validated by the handler). */
interface RecordCharge {
  readonly merchant: string;
  readonly request: unknown;
}

const recordCharge = { type: 'RecordCharge', version: 1 } as const;

const chargeHandler = defineDecideHandler<RecordCharge>({
  streams: ({ command }) => {
    const body = chargeRequestSchema.parse(command.request);
    return [chargesByReferenceStream(command.merchant, body.reference)];
  },
  decide: ({ command, ids, requestedAt }) => {
    const parsed = chargeRequestSchema.safeParse(command.request);
    if (!parsed.success) return reject({ status: 400, body: { type: '/problems/invalid-request' } });
    const charge = decideCharge(`ch_${ids.next('charge')}`, parsed.data, requestedAt);
    return accept(
      [
        {
          stream: chargesByReferenceStream(command.merchant, charge.reference),
          events: [{ type: 'ChargeRecorded', data: charge }],
        },
      ],
      { status: 201, body: charge },
    );
  },
});

/**
 * The gateway's ledger on the shared libraries: each charge is a keyed command of the Once idempotency engine
 * (`@once/idempotency`) over an event store (`@once/event-store`), so the gateway keeps its own idempotency keys the
 * same way the api does, and the inquiry reads the charges of a reference from their stream.
 *
 * @example
 * const ledger = createEventSourcedChargeLedger(createInMemoryEventStore({ atomicMultiStreamAppend: true }));
 */
export const createEventSourcedChargeLedger = (
  store: EventStore,
  engine: IdempotencyEngine = createIdempotencyEngine({ store }),
): ChargeLedger => ({
  charge: async ({ merchant, key, request }) => {
    const outcome = await engine.execute({
      scope: { tenantId: GATEWAY_TENANT, actorId: merchant },
      key,
      request: { method: 'POST', route: '/charges', params: { merchant }, body: request },
      command: { ...recordCharge, data: { merchant, request } },
      handler: chargeHandler,
    });
    switch (outcome.kind) {
      case 'first':
      case 'replay': {
        const charge = chargeSchema.parse(JSON.parse(outcome.response.body));
        return { kind: outcome.kind === 'first' ? 'created' : 'replayed', charge };
      }
      case 'reused':
      case 'expired':
        return { kind: 'key-reused' };
      case 'in-flight':
        return { kind: 'in-flight', retryAfterSeconds: outcome.retryAfterSeconds };
      case 'released':
      case 'unavailable':
        throw new Error(`the charge could not be recorded (${outcome.kind})`, {
          cause: 'error' in outcome ? outcome.error : undefined,
        });
      default: {
        const _exhaustive: never = outcome;
        return _exhaustive;
      }
    }
  },
  findByReference: async (merchant, reference) => {
    const events = await store.readStream(chargesByReferenceStream(merchant, reference));
    return events
      .filter((event) => event.type === 'ChargeRecorded')
      .map((event): Charge => chargeSchema.parse(event.data));
  },
});
