import type { DomainErrorCode } from './domain-error-catalog.js';

/**
 * A business rule said no. `code` is the error's tag, documented in `domainErrorCatalog`; `data` says what was asked
 * and why it does not fit. Branch on the class or the code, never on the message.
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

/**
 * The base class of one domain error: tagged with `code`, carrying the data `message` reads, with the standard
 * `{ cause }`. Declare each error in one line.
 *
 * @example
 * export class OrderNotFound extends domainError('order-not-found', (data: { orderId: OrderId }) => `order ${data.orderId} does not exist`) {}
 * throw new OrderNotFound({ orderId });
 */
export const domainError = <Code extends DomainErrorCode, Data extends object>(
  code: Code,
  message: (data: Data) => string,
) =>
  class extends DomainError<Code, Data> {
    constructor(data: Data, options?: ErrorOptions) {
      super(code, data, message(data), options);
    }
  };
