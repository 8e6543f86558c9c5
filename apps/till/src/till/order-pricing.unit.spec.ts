import { describe, expect, it } from 'vitest';
import { addToCart, cartTotal, placeOrderBody } from './order-pricing.js';
import type { MenuItem } from './till-model.js';

const espresso: MenuItem = { sku: 'espresso', name: 'Espresso', unitPrice: 250, currency: 'EUR' };
const croissant: MenuItem = { sku: 'croissant', name: 'Croissant', unitPrice: 300, currency: 'EUR' };

describe('order pricing', () => {
  it('adds items to the cart, one more per tap', () => {
    const cart = addToCart(addToCart(addToCart([], espresso), croissant), espresso);
    expect(cart).toEqual([
      { sku: 'espresso', name: 'Espresso', quantity: 2 },
      { sku: 'croissant', name: 'Croissant', quantity: 1 },
    ]);
    expect(cartTotal(cart, [espresso, croissant])).toBe(800);
  });

  it('sends what was ordered and the total the till showed, never a price', () => {
    const lines = [{ sku: 'espresso', name: 'Espresso', quantity: 2 }];
    expect(placeOrderBody(lines, 500, 'EUR')).toEqual({
      currency: 'EUR',
      lines: [{ sku: 'espresso', quantity: 2 }],
      expectedTotal: 500,
    });
  });

  it('shows a total at the menu the till holds, counting nothing for an item no longer on it', () => {
    const lines = [
      { sku: 'espresso', name: 'Espresso', quantity: 2 },
      { sku: 'muffin', name: 'Muffin', quantity: 1 },
    ];
    expect(cartTotal(lines, [espresso])).toBe(500);
  });
});
