import type { CurrencyCode } from '../values/index.js';
import { domainError } from './domain-error.js';

/** An amount or price that is not a (positive, where required) safe integer of minor units. */
export class InvalidAmount extends domainError('invalid-amount')<{ field: string; amount: number }> {}

/** A quantity that is not a positive integer (or, for stock counts, a non-negative one). */
export class InvalidQuantity extends domainError('invalid-quantity')<{ field: string; quantity: number }> {}

/** A currency that is not an ISO 4217 alphabetic code. */
export class InvalidCurrency extends domainError('invalid-currency')<{ currency: string }> {}

/** An amount in a currency other than the one of the invoice or order it belongs to. */
export class CurrencyMismatch extends domainError('currency-mismatch')<{
  expected: CurrencyCode;
  given: string;
}> {}
