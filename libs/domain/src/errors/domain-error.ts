import type { DomainErrorCode } from './domain-error-catalog.js';

/**
 * A business rule said no. `code` is documented in `domainErrorCatalog`; `data` says what was asked and why it
 * does not fit. Branch on the class or the code, never on the message.
 *
 * @example
 * class OrderNotFound extends DomainError<'order-not-found', { orderId: OrderId }> { … }
 */
export class DomainError<
  Code extends DomainErrorCode = DomainErrorCode,
  Data extends object = object,
> extends Error {
  constructor(
    readonly code: Code,
    readonly data: Readonly<Data>,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
