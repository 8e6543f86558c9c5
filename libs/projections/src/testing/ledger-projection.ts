import type { EventStore, RecordedEvent } from '@once/event-store';
import { formatPosition } from '@once/event-store';
import type { ProjectionDefinition } from '../runner/projection-definition.js';
import { defineTable } from '../tables/table-definition.js';
import { rowRef } from '../tables/unit-of-work.js';

/** A small projection for testing the machinery: balances that double-count if an event is applied twice. */
export type LedgerAccountRow = {
  tenant_id: string;
  account_id: string;
  balance: number;
  movements: number;
  last_position: string;
};

export const ledgerAccountsTable = defineTable<LedgerAccountRow>({
  name: 'ledger_accounts',
  columns: {
    tenant_id: { type: 'text' },
    account_id: { type: 'text' },
    balance: { type: 'bigint' },
    movements: { type: 'integer' },
    last_position: { type: 'text' },
  },
  primaryKey: ['tenant_id', 'account_id'],
});

export type LedgerEvent =
  | { readonly type: 'LedgerOpened'; readonly data: { tenantId: string; accountId: string } }
  | { readonly type: 'LedgerMoved'; readonly data: { tenantId: string; accountId: string; amount: number } }
  | { readonly type: 'LedgerClosed'; readonly data: { tenantId: string; accountId: string } };

export const ledgerStream = (tenantId: string, accountId: string): string =>
  `ledger-${tenantId}-${accountId}`;

const keyOf = (event: RecordedEvent) => {
  const data = event.data as { tenantId: string; accountId: string };
  return { tenant_id: data.tenantId, account_id: data.accountId };
};

/** The test projection: `ledger_accounts` over `ledger-` streams. */
export const ledgerProjection = (version = 1): ProjectionDefinition => ({
  name: 'ledger',
  version,
  streamPrefixes: ['ledger-'],
  tables: [ledgerAccountsTable],
  reads: (event) => [rowRef(ledgerAccountsTable, keyOf(event))],
  apply: async (tx, recorded) => {
    const event = recorded as RecordedEvent & LedgerEvent;
    const key = keyOf(recorded);
    const position = formatPosition(recorded.position);
    switch (event.type) {
      case 'LedgerOpened':
        tx.put(ledgerAccountsTable, { ...key, balance: 0, movements: 0, last_position: position });
        return;
      case 'LedgerMoved': {
        const row = await tx.get(ledgerAccountsTable, key);
        if (!row) throw new Error(`ledger ${key.account_id} moved before it was opened`);
        tx.put(ledgerAccountsTable, {
          ...row,
          balance: row.balance + event.data.amount,
          movements: row.movements + 1,
          last_position: position,
        });
        return;
      }
      case 'LedgerClosed':
        tx.delete(ledgerAccountsTable, key);
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
});

/** A seeded pseudo-random generator (mulberry32), so a failing workload can be replayed. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/**
 * Appends a random ledger workload (opens, moves, closes, plus unrelated noise streams) and returns the fold of the
 * log: what `ledger_accounts` must hold afterwards.
 */
export const appendLedgerWorkload = async (
  store: EventStore,
  options: { readonly seed: number; readonly tenantId: string; readonly operations: number },
): Promise<Map<string, LedgerAccountRow>> => {
  const random = seededRandom(options.seed);
  const open: { accountId: string; revision: bigint }[] = [];
  let nextAccount = 0;
  for (let operation = 0; operation < options.operations; operation += 1) {
    const roll = random();
    if (open.length === 0 || roll < 0.15) {
      const accountId = `a${nextAccount++}`;
      await store.appendToStream(
        ledgerStream(options.tenantId, accountId),
        [{ id: crypto.randomUUID(), type: 'LedgerOpened', data: { tenantId: options.tenantId, accountId } }],
        { expectedRevision: 'no_stream' },
      );
      open.push({ accountId, revision: 0n });
    } else if (roll < 0.2) {
      await store.appendToStream(
        `noise-${options.tenantId}`,
        [{ id: crypto.randomUUID(), type: 'Noise', data: {} }],
        {
          expectedRevision: 'any',
        },
      );
    } else {
      const index = Math.floor(random() * open.length);
      const account = open[index] as { accountId: string; revision: bigint };
      const closing = roll > 0.97;
      const count = closing ? 1 : 1 + Math.floor(random() * 3);
      const events = Array.from({ length: count }, () =>
        closing
          ? {
              id: crypto.randomUUID(),
              type: 'LedgerClosed',
              data: { tenantId: options.tenantId, accountId: account.accountId },
            }
          : {
              id: crypto.randomUUID(),
              type: 'LedgerMoved',
              data: {
                tenantId: options.tenantId,
                accountId: account.accountId,
                amount: Math.floor(random() * 2000) - 900,
              },
            },
      );
      const result = await store.appendToStream(ledgerStream(options.tenantId, account.accountId), events, {
        expectedRevision: account.revision,
      });
      account.revision = result.nextExpectedRevision;
      if (closing) open.splice(index, 1);
    }
  }
  return foldLedger(store, options.tenantId);
};

/** Folds the ledger events of a tenant straight from the log, independent of the projection machinery. */
export const foldLedger = async (
  store: EventStore,
  tenantId: string,
): Promise<Map<string, LedgerAccountRow>> => {
  const rows = new Map<string, LedgerAccountRow>();
  let after: RecordedEvent['position'] | undefined;
  for (;;) {
    const batch = await store.readAll({
      ...(after ? { after } : {}),
      filter: { streamPrefixes: [`ledger-${tenantId}-`] },
      maxCount: 1000,
    });
    for (const recorded of batch.events) {
      const event = recorded as RecordedEvent & LedgerEvent;
      const id = event.data.accountId;
      const position = formatPosition(recorded.position);
      if (event.type === 'LedgerOpened')
        rows.set(id, {
          tenant_id: tenantId,
          account_id: id,
          balance: 0,
          movements: 0,
          last_position: position,
        });
      else if (event.type === 'LedgerClosed') rows.delete(id);
      else {
        const row = rows.get(id) as LedgerAccountRow;
        rows.set(id, {
          ...row,
          balance: row.balance + event.data.amount,
          movements: row.movements + 1,
          last_position: position,
        });
      }
    }
    if (batch.caughtUp || !batch.checkpoint) return rows;
    after = batch.checkpoint;
  }
};
