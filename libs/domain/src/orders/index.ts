export { decider as orderDecider } from './order.decider.js';
export type { OrderDetails, OrderState } from './order.decider.js';
export type {
  ApproveOrder,
  CompleteOrder,
  OrderCommand,
  OrderLine,
  PlaceOrder,
  ServeOrder,
} from './order.commands.js';
export type {
  OrderApproved,
  OrderCompleted,
  OrderEvent,
  OrderHeldForReview,
  OrderPlaced,
  OrderServed,
  SaleRecorded,
} from './order.events.js';
export {
  EmptyOrder,
  OrderAlreadyCompleted,
  OrderAlreadyPlaced,
  OrderAlreadyServed,
  OrderAwaitingReview,
  OrderNotFound,
  OrderNotHeld,
  OrderNotServed,
} from './order.errors.js';
