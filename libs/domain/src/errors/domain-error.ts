import { domainErrorCatalog } from './domain-error-catalog.js';
import type { DomainErrorCode } from './domain-error-catalog.js';

/** The data the catalogue's message of `Code` reads. */
type MessageData<Code extends DomainErrorCode> = Parameters<(typeof domainErrorCatalog)[Code]['message']>[0];

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
 * The base class of one domain error, tagged with `code`: an error is one line naming its code and its data, and
 * takes the catalogue's message for that code, derived from the data, with the standard `{ cause }`.
 *
 * @example
 * export class OrderNotFound extends domainError('order-not-found')<{ orderId: OrderId }> {}
 * throw new OrderNotFound({ orderId });
 */
export const domainError = <Code extends DomainErrorCode>(code: Code) => {
  const message = domainErrorCatalog[code].message as (data: object) => string;
  return class TaggedDomainError<Data extends MessageData<Code> & object> extends DomainError<Code, Data> {
    constructor(data: Data, options?: ErrorOptions) {
      super(code, data, message(data), options);
    }
  };
};
