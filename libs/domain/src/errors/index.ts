export { DomainError, domainError } from './domain-error.js';
export { domainErrorCatalog } from './domain-error-catalog.js';
export type { DomainErrorCode } from './domain-error-catalog.js';
export { CurrencyMismatch, InvalidAmount, InvalidCurrency, InvalidQuantity } from './money-errors.js';
