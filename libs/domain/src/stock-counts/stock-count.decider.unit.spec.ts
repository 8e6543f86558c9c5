import { describe, expect, it } from 'vitest';
import { InvalidQuantity } from '../errors/index.js';
import { asSku, asStockCountId, asTenantId } from '../values/index.js';
import { deciderSpecification } from '../testing/index.js';
import type { StockCountCommand } from './stock-count.commands.js';
import { decider, evolve, initialState, stockCountLimits } from './stock-count.decider.js';
import {
  EmptyStockCount,
  StockCountAlreadyOpened,
  StockCountAlreadyPosted,
  StockCountFull,
  StockCountNotFound,
} from './stock-count.errors.js';
import type { StockCountEvent } from './stock-count.events.js';

const given = deciderSpecification(decider);
const tenantId = asTenantId('tenant-1');
const stockCountId = asStockCountId('sc-1');
const at = '2026-01-31T08:00:00.000Z';
const later = '2026-01-31T09:00:00.000Z';
const beans = asSku('beans-1kg');
const milk = asSku('milk-1l');

const open: StockCountCommand = { type: 'OpenStockCount', data: { tenantId, stockCountId, openedAt: at } };
const count = (sku: typeof beans, countedQuantity: number): StockCountCommand => ({
  type: 'RecordCountLine',
  data: { stockCountId, sku, countedQuantity, recordedAt: at },
});
const post: StockCountCommand = { type: 'PostStockCount', data: { stockCountId, postedAt: later } };

const opened: StockCountEvent = { type: 'StockCountOpened', data: { tenantId, stockCountId, openedAt: at } };
const counted = (sku: typeof beans, countedQuantity: number): StockCountEvent => ({
  type: 'StockCountLineRecorded',
  data: { tenantId, stockCountId, sku, countedQuantity, recordedAt: at },
});
const posted = (lines: { sku: typeof beans; countedQuantity: number }[]): StockCountEvent => ({
  type: 'StockCountPosted',
  data: { tenantId, stockCountId, lines, postedAt: later },
});

describe('OpenStockCount', () => {
  it('opens a stock count once', () => {
    given([]).when(open).then([opened]);
    given([opened]).when(open).then(StockCountAlreadyOpened, { stockCountId });
  });
});

describe('RecordCountLine', () => {
  it('records a counted line while the count is open, zero included', () => {
    given([opened])
      .when(count(beans, 12))
      .then([counted(beans, 12)]);
    given([opened])
      .when(count(beans, 0))
      .then([counted(beans, 0)]);
  });

  it.each([-1, 1.5, Number.NaN])('refuses a counted quantity of %s', (quantity) => {
    given([opened])
      .when(count(beans, quantity))
      .then(InvalidQuantity, { field: 'countedQuantity', quantity });
  });

  it('records lines only on an open count', () => {
    given([]).when(count(beans, 1)).then(StockCountNotFound, { stockCountId });
    given([opened, counted(beans, 1), posted([{ sku: beans, countedQuantity: 1 }])])
      .when(count(beans, 2))
      .then(StockCountAlreadyPosted, { stockCountId });
  });
});

describe('RecordCountLine within the limits', () => {
  const skus = (count: number) => Array.from({ length: count }, (_, index) => asSku(`sku-${String(index)}`));

  it('takes no new sku past the line limit, and still takes a sku it already has', () => {
    const full = [opened, ...skus(stockCountLimits.lines).map((sku) => counted(sku, 1))];
    given(full)
      .when(count(beans, 1))
      .then(StockCountFull, { stockCountId, limit: stockCountLimits.lines, of: 'lines' });
    given(full)
      .when(count(asSku('sku-0'), 2))
      .then([counted(asSku('sku-0'), 2)]);
  });

  it('takes no line past the recording limit, a sku it already has included', () => {
    const recorded = Array.from({ length: stockCountLimits.recordings }, () => counted(beans, 1));
    given([opened, ...recorded])
      .when(count(beans, 2))
      .then(StockCountFull, { stockCountId, limit: stockCountLimits.recordings, of: 'recordings' });
    given([opened, ...recorded.slice(1)])
      .when(count(beans, 2))
      .then([counted(beans, 2)]);
  });
});

describe('PostStockCount', () => {
  it('posts the last quantity of each sku, in the order skus were first counted', () => {
    given([opened, counted(beans, 12), counted(milk, 30), counted(beans, 11)])
      .when(post)
      .then([
        posted([
          { sku: beans, countedQuantity: 11 },
          { sku: milk, countedQuantity: 30 },
        ]),
      ]);
  });

  it('posts once', () => {
    given([opened, counted(beans, 1), posted([{ sku: beans, countedQuantity: 1 }])])
      .when(post)
      .then(StockCountAlreadyPosted, { stockCountId });
  });

  it('refuses an empty count and a count never opened', () => {
    given([opened]).when(post).then(EmptyStockCount, { stockCountId });
    given([]).when(post).then(StockCountNotFound, { stockCountId });
  });
});

describe('stock count state', () => {
  it('ignores lines recorded after posting and events before opening', () => {
    const postedState = [
      opened,
      counted(beans, 1),
      posted([{ sku: beans, countedQuantity: 1 }]),
      counted(milk, 5),
    ].reduce(evolve, initialState());
    expect(postedState.status).toBe('posted');
    if (postedState.status !== 'posted') return;
    expect([...postedState.lines]).toEqual([[beans, 1]]);
    expect(evolve(initialState(), counted(beans, 1))).toEqual({ status: 'none' });
  });
});
