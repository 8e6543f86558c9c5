import type { CartLine, MenuItem } from './till-model.js';

/** The body of `POST /orders`: what was ordered and the total the till showed; never a price. */
export interface PlaceOrderBody {
  readonly currency: string;
  readonly lines: readonly { readonly sku: string; readonly quantity: number }[];
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
 * The order as it is submitted, fixed when the cashier taps _Place order_ (online or not): the items and quantities,
 * and the total the cashier was shown. The api prices every line from its menu when the order arrives; a total that
 * differs (a price changed while the order waited offline) holds the order for review rather than charge a price
 * nobody saw.
 *
 * @param lines the order's lines.
 * @param shownTotal what the till showed when the order was made.
 * @example
 * placeOrderBody(lines, 500, 'EUR'); // { currency: 'EUR', lines: [{ sku: 'espresso', quantity: 2 }], expectedTotal: 500 }
 */
export const placeOrderBody = (
  lines: readonly CartLine[],
  shownTotal: number,
  currency: string,
): PlaceOrderBody => ({
  currency,
  lines: lines.map((line) => ({ sku: line.sku, quantity: line.quantity })),
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
