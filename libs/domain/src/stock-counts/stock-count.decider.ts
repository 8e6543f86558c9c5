import type { Decider } from '../decider/index.js';
import { requireQuantity } from '../rules/index.js';
import type { Sku, StockCountId, TenantId, Timestamp } from '../values/index.js';
import type { StockCountCommand } from './stock-count.commands.js';
import {
  EmptyStockCount,
  StockCountAlreadyOpened,
  StockCountAlreadyPosted,
  StockCountFull,
  StockCountNotFound,
} from './stock-count.errors.js';
import type { CountLine, StockCountEvent } from './stock-count.events.js';

interface StockCountDetails {
  readonly tenantId: TenantId;
  readonly stockCountId: StockCountId;
  readonly openedAt: Timestamp;
  /** Counted quantity by sku; a sku keeps the place where it was first counted. */
  readonly lines: ReadonlyMap<Sku, number>;
  /** Lines recorded so far, a sku recorded again included: each is an event the count's stream holds. */
  readonly recordings: number;
}

/**
 * How much one stock count holds: distinct skus, and recorded lines in all. Every command on a count reads its whole
 * stream, so a client must not grow one without end.
 */
export const stockCountLimits = { lines: 500, recordings: 2_000 } as const;

export type StockCountState =
  | { readonly status: 'none' }
  | ({ readonly status: 'open' } & StockCountDetails)
  | ({ readonly status: 'posted'; readonly postedAt: Timestamp } & StockCountDetails);

/** A stream with no events: no stock count yet. */
export const initialState = (): StockCountState => ({ status: 'none' });

const requireOpen = (state: StockCountState, stockCountId: StockCountId) => {
  if (state.status === 'none') throw new StockCountNotFound({ stockCountId });
  if (state.status === 'posted') throw new StockCountAlreadyPosted({ stockCountId });
  return state;
};

const countLines = (lines: ReadonlyMap<Sku, number>): readonly CountLine[] =>
  [...lines].map(([sku, countedQuantity]) => ({ sku, countedQuantity }));

/**
 * Decides a stock count command; throws a `DomainError` when a rule forbids it.
 * Lines are recorded only while the count is open and within `stockCountLimits`; a count is posted once, and never
 * empty.
 *
 * @param command - OpenStockCount, RecordCountLine or PostStockCount.
 * @param state - the fold of the stock count stream.
 * @returns the events to append.
 * @example
 * decide({ type: 'PostStockCount', data: { stockCountId, postedAt } }, open); // [StockCountPosted]
 */
export const decide = (command: StockCountCommand, state: StockCountState): readonly StockCountEvent[] => {
  switch (command.type) {
    case 'OpenStockCount': {
      const { tenantId, stockCountId, openedAt } = command.data;
      if (state.status !== 'none') throw new StockCountAlreadyOpened({ stockCountId });
      return [{ type: 'StockCountOpened', data: { tenantId, stockCountId, openedAt } }];
    }
    case 'RecordCountLine': {
      const { stockCountId, sku, countedQuantity, recordedAt } = command.data;
      const open = requireOpen(state, stockCountId);
      requireQuantity('countedQuantity', countedQuantity, { allowZero: true });
      if (!open.lines.has(sku) && open.lines.size >= stockCountLimits.lines) {
        throw new StockCountFull({ stockCountId, limit: stockCountLimits.lines, of: 'lines' });
      }
      if (open.recordings >= stockCountLimits.recordings) {
        throw new StockCountFull({ stockCountId, limit: stockCountLimits.recordings, of: 'recordings' });
      }
      return [
        {
          type: 'StockCountLineRecorded',
          data: { tenantId: open.tenantId, stockCountId, sku, countedQuantity, recordedAt },
        },
      ];
    }
    case 'PostStockCount': {
      const { stockCountId, postedAt } = command.data;
      const open = requireOpen(state, stockCountId);
      if (open.lines.size === 0) throw new EmptyStockCount({ stockCountId });
      return [
        {
          type: 'StockCountPosted',
          data: { tenantId: open.tenantId, stockCountId, lines: countLines(open.lines), postedAt },
        },
      ];
    }
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
};

/**
 * Folds one stock count event into the state. Events that cannot apply in the current status leave it as is.
 * @example const state = events.reduce(evolve, initialState());
 */
export const evolve = (state: StockCountState, event: StockCountEvent): StockCountState => {
  switch (event.type) {
    case 'StockCountOpened': {
      const { tenantId, stockCountId, openedAt } = event.data;
      return { status: 'open', tenantId, stockCountId, openedAt, lines: new Map(), recordings: 0 };
    }
    case 'StockCountLineRecorded':
      if (state.status !== 'open') return state;
      return {
        ...state,
        lines: new Map(state.lines).set(event.data.sku, event.data.countedQuantity),
        recordings: state.recordings + 1,
      };
    case 'StockCountPosted':
      if (state.status !== 'open') return state;
      return { ...state, status: 'posted', postedAt: event.data.postedAt };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** The stock count decider: open, record lines (a sku again replaces its line), post once. */
export const decider: Decider<StockCountCommand, StockCountEvent, StockCountState> = {
  decide,
  evolve,
  initialState,
};
