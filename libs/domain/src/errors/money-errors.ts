import type { CurrencyCode } from '../shared/index.js';
import { domainError } from './domain-error.js';

/** An amount or price that is not a (positive, where required) safe integer of minor units. */
export class InvalidAmount extends domainError(
  'invalid-amount',
  (data: { field: string; amount: number }) =>
    `${data.field} must be a positive whole number of minor units, got ${data.amount}`,
) {}

/** A quantity that is not a positive integer (or, for stock counts, a non-negative one). */
export class InvalidQuantity extends domainError(
  'invalid-quantity',
  (data: { field: string; quantity: number }) => `${data.field} must be a whole number, got ${data.quantity}`,
) {}

/** A currency that is not an ISO 4217 alphabetic code. */
export class InvalidCurrency extends domainError(
  'invalid-currency',
  (data: { currency: string }) => `${data.currency} is not an ISO 4217 currency code`,
) {}

/** An amount in a currency other than the one of the invoice or order it belongs to. */
export class CurrencyMismatch extends domainError(
  'currency-mismatch',
  (data: { expected: CurrencyCode; given: string }) =>
    `expected an amount in ${data.expected}, got ${data.given}`,
) {}
