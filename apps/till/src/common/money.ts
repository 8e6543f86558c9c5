/**
 * Minor units as the till shows them.
 *
 * @example
 * formatMoney(450, 'EUR'); // '€4.50'
 */
export const formatMoney = (amount: number, currency: string): string =>
  new Intl.NumberFormat('en-IE', { style: 'currency', currency }).format(amount / 100);
