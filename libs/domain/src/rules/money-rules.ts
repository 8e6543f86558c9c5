import { CurrencyMismatch, InvalidAmount, InvalidCurrency, InvalidQuantity } from '../errors/index.js';
import { isCurrencyCode, isMinorUnits } from '../values/index.js';
import type { CurrencyCode, Money } from '../values/index.js';

/** The currency as a checked ISO 4217 code, or `InvalidCurrency`. */
export const requireCurrency = (currency: string): CurrencyCode => {
  if (!isCurrencyCode(currency)) throw new InvalidCurrency({ currency });
  return currency;
};

/** A payment, reservation or total: a safe integer above zero, or `InvalidAmount`. */
export const requirePositiveAmount = (field: string, amount: number): number => {
  if (!isMinorUnits(amount) || amount <= 0) throw new InvalidAmount({ field, amount });
  return amount;
};

/** A unit price or expected total: a safe integer of zero or more, or `InvalidAmount`. */
export const requireNonNegativeAmount = (field: string, amount: number): number => {
  if (!isMinorUnits(amount) || amount < 0) throw new InvalidAmount({ field, amount });
  return amount;
};

/** A line quantity: a safe integer above zero (or of zero or more when `allowZero`), or `InvalidQuantity`. */
export const requireQuantity = (field: string, quantity: number, { allowZero = false } = {}): number => {
  if (!Number.isSafeInteger(quantity) || quantity < (allowZero ? 0 : 1))
    throw new InvalidQuantity({ field, quantity });
  return quantity;
};

/** The amount in the expected currency, or `CurrencyMismatch`. */
export const requireSameCurrency = (expected: CurrencyCode, given: Money): Money => {
  if (given.currency !== expected) throw new CurrencyMismatch({ expected, given: given.currency });
  return given;
};

/** Sums `quantity × unitPrice` over lines; a total beyond 2^53 − 1 is `InvalidAmount` rather than a rounded number. */
export const sumLines = (
  field: string,
  lines: readonly { quantity: number; unitPrice: number }[],
): number => {
  const total = lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);
  if (!isMinorUnits(total)) throw new InvalidAmount({ field, amount: total });
  return total;
};
