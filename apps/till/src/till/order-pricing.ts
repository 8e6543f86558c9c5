import type { CartLine, MenuItem } from './till-model.js';

/** The body of `POST /orders`. */
export interface PlaceOrderBody {
  readonly currency: string;
  readonly lines: readonly { readonly sku: string; readonly quantity: number; readonly unitPrice: number }[];
  readonly expectedTotal: number;
}

const priceOf = (menu: readonly MenuItem[], sku: string): number | undefined =>
  menu.find((item) => item.sku === sku)?.unitPrice;

/**
 * The cart's total at the menu's prices (lines whose item left the menu count nothing).
 *
 * @example
 * cartTotal([{ sku: 'espresso', name: 'Espresso', quantity: 2 }], menu); // 500
 */
export const cartTotal = (lines: readonly CartLine[], menu: readonly MenuItem[]): number =>
  lines.reduce((sum, line) => sum + (priceOf(menu, line.sku) ?? 0) * line.quantity, 0);

/**
 * The order as it is submitted: each line at the price in force now, and the total the cashier was shown when the
 * order was made. When the two totals differ the api holds the order for review rather than charge a price nobody saw.
 *
 * @param lines the order's lines.
 * @param menu the prices in force when the order is submitted.
 * @param shownTotal what the till showed when the order was made.
 * @example
 * placeOrderBody(lines, freshMenu, 500); // { currency: 'EUR', lines: [...], expectedTotal: 500 }
 */
export const placeOrderBody = (
  lines: readonly CartLine[],
  menu: readonly MenuItem[],
  shownTotal: number,
  currency: string,
): PlaceOrderBody => ({
  currency,
  lines: lines.map((line) => ({
    sku: line.sku,
    quantity: line.quantity,
    unitPrice: priceOf(menu, line.sku) ?? 0,
  })),
  expectedTotal: shownTotal,
});

/**
 * Adds one of an item to the cart.
 *
 * @example
 * addToCart([], { sku: 'espresso', name: 'Espresso', unitPrice: 250, currency: 'EUR' }); // one espresso
 */
export const addToCart = (cart: readonly CartLine[], item: MenuItem): CartLine[] => {
  const existing = cart.find((line) => line.sku === item.sku);
  if (!existing) return [...cart, { sku: item.sku, name: item.name, quantity: 1 }];
  return cart.map((line) => (line.sku === item.sku ? { ...line, quantity: line.quantity + 1 } : line));
};
