export { DomainError } from './domain-error.js';
export { domainErrorCatalog } from './domain-error-catalog.js';
export type { DomainErrorCode, DomainErrorDescription } from './domain-error-catalog.js';
export { CurrencyMismatch, InvalidAmount, InvalidCurrency, InvalidQuantity } from './money-errors.js';
