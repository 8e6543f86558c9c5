import { asSku, asStockCountId, asTenantId, stockCountStream } from '@once/domain';
import { stockCountDecider } from '@once/domain/stock-counts';
import type {
  OpenStockCount,
  PostStockCount,
  RecordCountLine,
  StockCountState,
} from '@once/domain/stock-counts';
import type { CommandContext, CommandOf, DecideCommandHandler, HandlerResponse } from '@once/idempotency';
import { aggregateCommand } from '../commands/aggregate-command.js';
import type { openStockCount, postStockCount, recordCountLine } from './stock-count.commands.js';
import { toStockCountView } from './stock-count.view.js';

const tenantOf = (context: CommandContext) => asTenantId(context.scope.tenantId);
const countIdOf = (context: CommandContext<{ readonly stockCountId: string }>) =>
  asStockCountId(context.command.stockCountId);
const at = (context: CommandContext) => context.requestedAt.toISOString();

const countResponse = (status: number, state: StockCountState): HandlerResponse => {
  const view = toStockCountView(state);
  if (!view) throw new Error('the stock count decider accepted a command but left no count');
  return { status, headers: { location: `/stock-counts/${view.id}` }, body: view };
};

/** `POST /stock-counts`: opens a count whose id is derived from the key. */
export const openStockCountHandler: DecideCommandHandler<CommandOf<typeof openStockCount>> = aggregateCommand(
  {
    decider: stockCountDecider,
    stream: (context) => stockCountStream(tenantOf(context), asStockCountId(context.ids.next('stock-count'))),
    command: (context): OpenStockCount => ({
      type: 'OpenStockCount',
      data: {
        tenantId: tenantOf(context),
        stockCountId: asStockCountId(context.ids.next('stock-count')),
        openedAt: at(context),
      },
    }),
    respond: (_context, state) => countResponse(201, state),
  },
);

/** `POST /stock-counts/:id/lines`: records (or replaces) the counted quantity of a sku. */
export const recordCountLineHandler: DecideCommandHandler<CommandOf<typeof recordCountLine>> =
  aggregateCommand({
    decider: stockCountDecider,
    stream: (context) => stockCountStream(tenantOf(context), countIdOf(context)),
    command: (context): RecordCountLine => {
      const body = context.command;
      return {
        type: 'RecordCountLine',
        data: {
          stockCountId: countIdOf(context),
          sku: asSku(body.sku),
          countedQuantity: body.countedQuantity,
          recordedAt: at(context),
        },
      };
    },
    respond: (_context, state) => countResponse(200, state),
  });

/** `POST /stock-counts/:id/post`: posts the count, once. */
export const postStockCountHandler: DecideCommandHandler<CommandOf<typeof postStockCount>> = aggregateCommand(
  {
    decider: stockCountDecider,
    stream: (context) => stockCountStream(tenantOf(context), countIdOf(context)),
    command: (context): PostStockCount => ({
      type: 'PostStockCount',
      data: { stockCountId: countIdOf(context), postedAt: at(context) },
    }),
    respond: (_context, state) => countResponse(200, state),
  },
);
