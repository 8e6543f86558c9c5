import type { Brand } from './brand.js';

/** An ISO 4217 alphabetic currency code: three upper-case letters (`EUR`, `USD`, `IRR`). */
export type CurrencyCode = Brand<string, 'CurrencyCode'>;

/** An amount of money: a whole number of the currency's minor units (cents for EUR), never a fraction. */
export interface Money {
  readonly amount: number;
  readonly currency: CurrencyCode;
}

const currencyCodePattern = /^[A-Z]{3}$/;

/**
 * Whether a string has the shape of an ISO 4217 code (three upper-case letters).
 * @example isCurrencyCode('EUR') // true
 */
export const isCurrencyCode = (value: string): value is CurrencyCode => currencyCodePattern.test(value);

/**
 * Whether a number can be a stored amount of minor units: a safe integer (no fractions, no precision loss).
 * @example isMinorUnits(1250) // true; isMinorUnits(12.5) // false
 */
export const isMinorUnits = (value: number): boolean => Number.isSafeInteger(value);

/**
 * Builds a Money value. The shapes are checked by the deciders' guards; this only names them.
 * @example money(1250, 'EUR') // 12.50 EUR
 */
export const money = (amount: number, currency: string): Money => ({
  amount,
  currency: currency as CurrencyCode,
});
