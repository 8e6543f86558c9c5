export { approveOrder, completeOrder, placeOrder, serveOrder } from './order.commands.js';
export {
  approveOrderHandler,
  completeOrderHandler,
  orderKeyRetentionSeconds,
  placeOrderHandler,
  serveOrderHandler,
} from './order.handlers.js';
export { orderIdParams, orderView, placeOrderBody } from './order.schemas.js';
export type { OrderView } from './order.schemas.js';
export { toOrderView } from './order.view.js';
