import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { decideCharge } from './charge.js';
import type { Charge, ChargeRequest } from './charge.js';

/** What happened to a charge request carrying an idempotency key. */
export type ChargeOutcome =
  | { readonly kind: 'created'; readonly charge: Charge }
  | { readonly kind: 'replayed'; readonly charge: Charge }
  | { readonly kind: 'key-reused' }
  | { readonly kind: 'in-flight'; readonly retryAfterSeconds: number };

/** Where the gateway keeps its charges and its own idempotency keys. */
export interface ChargeLedger {
  /** Charges once per `(merchant, key)`; the same key with the same request returns the first charge. */
  charge(input: { merchant: string; key: string; request: ChargeRequest; now: Date }): Promise<ChargeOutcome>;
  /** Every charge a merchant made with this reference, oldest first (the inquiry call). */
  findByReference(merchant: string, reference: string): Promise<readonly Charge[]>;
}

interface KeyRecord {
  readonly request: ChargeRequest;
  readonly charge: Charge;
}

/**
 * A ledger in process memory: a key map and a reference index, updated synchronously so two concurrent
 * requests with one key cannot both charge.
 *
 * @example
 * const ledger = createInMemoryChargeLedger();
 * await ledger.charge({ merchant: 'm', key: 'k-123456', request, now: new Date() });
 */
export const createInMemoryChargeLedger = (): ChargeLedger => {
  const keys = new Map<string, KeyRecord>();
  const byReference = new Map<string, Charge[]>();
  return {
    charge: async ({ merchant, key, request, now }) => {
      const scope = JSON.stringify([merchant, key]);
      const existing = keys.get(scope);
      if (existing) {
        return isDeepStrictEqual(existing.request, request)
          ? { kind: 'replayed', charge: existing.charge }
          : { kind: 'key-reused' };
      }
      const charge = decideCharge(`ch_${randomUUID()}`, request, now);
      keys.set(scope, { request, charge });
      const referenceScope = JSON.stringify([merchant, request.reference]);
      byReference.set(referenceScope, [...(byReference.get(referenceScope) ?? []), charge]);
      return { kind: 'created', charge };
    },
    findByReference: async (merchant, reference) =>
      byReference.get(JSON.stringify([merchant, reference])) ?? [],
  };
};
