import type { CurrencyCode } from '../shared/index.js';
import { DomainError } from './domain-error.js';

/** An amount or price that is not a (positive, where required) safe integer of minor units. */
export class InvalidAmount extends DomainError<'invalid-amount', { field: string; amount: number }> {
  constructor(data: { field: string; amount: number }, options?: ErrorOptions) {
    super(
      'invalid-amount',
      data,
      `${data.field} must be a positive whole number of minor units, got ${data.amount}`,
      options,
    );
  }
}

/** A quantity that is not a positive integer (or, for stock counts, a non-negative one). */
export class InvalidQuantity extends DomainError<'invalid-quantity', { field: string; quantity: number }> {
  constructor(data: { field: string; quantity: number }, options?: ErrorOptions) {
    super('invalid-quantity', data, `${data.field} must be a whole number, got ${data.quantity}`, options);
  }
}

/** A currency that is not an ISO 4217 alphabetic code. */
export class InvalidCurrency extends DomainError<'invalid-currency', { currency: string }> {
  constructor(data: { currency: string }, options?: ErrorOptions) {
    super('invalid-currency', data, `${data.currency} is not an ISO 4217 currency code`, options);
  }
}

/** An amount in a currency other than the one of the invoice or order it belongs to. */
export class CurrencyMismatch extends DomainError<
  'currency-mismatch',
  { expected: CurrencyCode; given: string }
> {
  constructor(data: { expected: CurrencyCode; given: string }, options?: ErrorOptions) {
    super('currency-mismatch', data, `expected an amount in ${data.expected}, got ${data.given}`, options);
  }
}
