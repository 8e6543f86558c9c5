import { domainErrorCatalog } from '@once/domain';
import type { DomainErrorCode } from '@once/domain';
import type { ProblemType } from '@once/idempotency';

/**
 * The status each domain refusal is answered with. 404: the aggregate does not exist; 409: the aggregate is in a
 * state that forbids the command (retrying will not help until the state changes); 422: the command itself breaks
 * a rule.
 */
const domainErrorStatus: Readonly<Record<DomainErrorCode, 404 | 409 | 422>> = {
  'invalid-amount': 422,
  'invalid-quantity': 422,
  'invalid-currency': 422,
  'currency-mismatch': 422,
  'invoice-not-found': 404,
  'invoice-already-issued': 409,
  'empty-invoice': 422,
  'payment-exceeds-balance': 422,
  'payment-already-recorded': 409,
  'card-reservation-not-found': 404,
  'card-charge-already-recorded': 409,
  'order-not-found': 404,
  'order-already-placed': 409,
  'empty-order': 422,
  'too-many-order-lines': 422,
  'item-not-on-menu': 422,
  'order-awaiting-review': 409,
  'order-not-held': 409,
  'order-not-served': 409,
  'order-already-served': 409,
  'order-already-completed': 409,
  'menu-full': 409,
  'menu-item-not-found': 404,
  'stock-count-not-found': 404,
  'stock-count-already-opened': 409,
  'stock-count-already-posted': 409,
  'empty-stock-count': 422,
  'stock-count-full': 422,
  'webhook-endpoint-not-found': 404,
  'webhook-endpoint-already-registered': 409,
  'invalid-webhook-event-types': 422,
  'card-settlement-not-found': 404,
  'card-settlement-already-settled': 409,
  'card-settlement-not-awaiting-operator': 409,
};

/** The domain's refusals as problem types: the domain's words, the api's status. */
export const domainProblems = Object.fromEntries(
  Object.entries(domainErrorCatalog).map(([code, { title, description }]) => [
    code,
    { status: domainErrorStatus[code as DomainErrorCode], title, description },
  ]),
) as Readonly<Record<DomainErrorCode, ProblemType>>;
