export { decider as orderDecider, maxOrderLines } from './order.decider.js';
export type { OrderDetails, OrderState } from './order.decider.js';
export type {
  ApproveOrder,
  CompleteOrder,
  OrderCommand,
  OrderedItem,
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
  ItemNotOnMenu,
  OrderAlreadyCompleted,
  OrderAlreadyPlaced,
  OrderAlreadyServed,
  OrderAwaitingReview,
  OrderNotFound,
  OrderNotHeld,
  OrderNotServed,
  TooManyOrderLines,
} from './order.errors.js';
