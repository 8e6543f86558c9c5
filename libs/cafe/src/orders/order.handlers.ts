import { asOrderId, asSaleId, asSku, asTenantId, menuStream, orderStream } from '@once/domain';
import { menuDecider } from '@once/domain/menus';
import { orderDecider } from '@once/domain/orders';
import type { ApproveOrder, CompleteOrder, OrderState, PlaceOrder, ServeOrder } from '@once/domain/orders';
import { accept, defineDecideHandler, reject } from '@once/idempotency';
import type { CommandContext, CommandOf, DecideCommandHandler, HandlerResponse } from '@once/idempotency';
import { aggregateCommand, decideOrRefuse, foldSnapshot } from '../commands/aggregate-command.js';
import type { approveOrder, completeOrder, placeOrder, serveOrder } from './order.commands.js';
import { toOrderView } from './order.view.js';

const tenantOf = (context: CommandContext) => asTenantId(context.scope.tenantId);
const orderIdOf = (context: CommandContext<{ readonly orderId: string }>) =>
  asOrderId(context.command.orderId);
const at = (context: CommandContext) => context.requestedAt.toISOString();
const newOrderIdOf = (context: CommandContext) => asOrderId(context.ids.next('order'));
const orderStreamOf = (context: CommandContext) => orderStream(tenantOf(context), newOrderIdOf(context));

const orderResponse = (status: number, state: OrderState): HandlerResponse => {
  const view = toOrderView(state);
  if (!view) throw new Error('the order decider accepted a command but left no order');
  return { status, headers: { location: `/orders/${view.id}` }, body: view };
};

/** Orders come from tills that may queue them offline for days: their keys are kept a week. */
export const orderKeyRetentionSeconds = 7 * 24 * 60 * 60;

/**
 * `POST /orders`: places an order whose id is derived from the key, every line priced from the tenant's menu as it is
 * now (read with the order, never taken from the client); an item not on the menu refuses the order (a stored 422).
 * The menu is read, not written: a repricing that lands between the read and the append is the next order's price.
 */
export const placeOrderHandler: DecideCommandHandler<CommandOf<typeof placeOrder>> = defineDecideHandler({
  retentionSeconds: orderKeyRetentionSeconds,
  streams: (context) => [orderStreamOf(context), menuStream(tenantOf(context))],
  decide: (context, snapshots) => {
    const stream = orderStreamOf(context);
    const state = foldSnapshot(orderDecider, snapshots.get(stream));
    const menu = foldSnapshot(menuDecider, snapshots.get(menuStream(tenantOf(context))));
    const body = context.command;
    const command: PlaceOrder = {
      type: 'PlaceOrder',
      data: {
        tenantId: tenantOf(context),
        orderId: newOrderIdOf(context),
        currency: body.currency,
        items: body.lines.map((line) => ({ sku: asSku(line.sku), quantity: line.quantity })),
        menu,
        ...(body.expectedTotal === undefined ? {} : { expectedTotal: body.expectedTotal }),
        placedAt: at(context),
      },
    };
    const decided = decideOrRefuse(() => orderDecider.decide(command, state));
    if (!decided.ok) return reject(decided.response);
    const after = decided.value.reduce(orderDecider.evolve, state);
    return accept([{ stream, events: decided.value }], orderResponse(201, after));
  },
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
