import { asOrderId, asSaleId, asSku, asTenantId, orderStream } from '@once/domain';
import { orderDecider } from '@once/domain/orders';
import type { ApproveOrder, CompleteOrder, OrderState, PlaceOrder, ServeOrder } from '@once/domain/orders';
import type { CommandContext, CommandOf, DecideCommandHandler, HandlerResponse } from '@once/idempotency';
import { aggregateCommand } from '../commands/aggregate-command.js';
import type { approveOrder, completeOrder, placeOrder, serveOrder } from './order.commands.js';
import { toOrderView } from './order.view.js';

const tenantOf = (context: CommandContext) => asTenantId(context.scope.tenantId);
const orderIdOf = (context: CommandContext<{ readonly orderId: string }>) =>
  asOrderId(context.command.orderId);
const at = (context: CommandContext) => context.requestedAt.toISOString();

const orderResponse = (status: number, state: OrderState): HandlerResponse => {
  const view = toOrderView(state);
  if (!view) throw new Error('the order decider accepted a command but left no order');
  return { status, headers: { location: `/orders/${view.id}` }, body: view };
};

/** Orders come from tills that may queue them offline for days: their keys are kept a week. */
export const orderKeyRetentionSeconds = 7 * 24 * 60 * 60;

/** `POST /orders`: places an order whose id is derived from the key. */
export const placeOrderHandler: DecideCommandHandler<CommandOf<typeof placeOrder>> = aggregateCommand({
  decider: orderDecider,
  retentionSeconds: orderKeyRetentionSeconds,
  stream: (context) => orderStream(tenantOf(context), asOrderId(context.ids.next('order'))),
  command: (context) => {
    const body = context.command;
    const command: PlaceOrder = {
      type: 'PlaceOrder',
      data: {
        tenantId: tenantOf(context),
        orderId: asOrderId(context.ids.next('order')),
        currency: body.currency,
        lines: body.lines.map((line) => ({ ...line, sku: asSku(line.sku) })),
        ...(body.expectedTotal === undefined ? {} : { expectedTotal: body.expectedTotal }),
        placedAt: at(context),
      },
    };
    return command;
  },
  respond: (_context, state) => orderResponse(201, state),
});

/** `POST /orders/:id/approve`: accepts the current total of an order held for review (prices changed meanwhile). */
export const approveOrderHandler: DecideCommandHandler<CommandOf<typeof approveOrder>> = aggregateCommand({
  decider: orderDecider,
  stream: (context) => orderStream(tenantOf(context), orderIdOf(context)),
  command: (context): ApproveOrder => ({
    type: 'ApproveOrder',
    data: { orderId: orderIdOf(context), approvedAt: at(context) },
  }),
  respond: (_context, state) => orderResponse(200, state),
});

/** `POST /orders/:id/serve`. */
export const serveOrderHandler: DecideCommandHandler<CommandOf<typeof serveOrder>> = aggregateCommand({
  decider: orderDecider,
  stream: (context) => orderStream(tenantOf(context), orderIdOf(context)),
  command: (context): ServeOrder => ({
    type: 'ServeOrder',
    data: { orderId: orderIdOf(context), servedAt: at(context) },
  }),
  respond: (_context, state) => orderResponse(200, state),
});

/** `POST /orders/:id/complete`: the order becomes a sale, once, only from `served`. */
export const completeOrderHandler: DecideCommandHandler<CommandOf<typeof completeOrder>> = aggregateCommand({
  decider: orderDecider,
  stream: (context) => orderStream(tenantOf(context), orderIdOf(context)),
  command: (context): CompleteOrder => ({
    type: 'CompleteOrder',
    data: {
      orderId: orderIdOf(context),
      saleId: asSaleId(context.ids.next('sale')),
      completedAt: at(context),
    },
  }),
  respond: (_context, state) => orderResponse(200, state),
});
