declare const brand: unique symbol;

/** A nominal type over a primitive: `Brand<string, 'InvoiceId'>` is a string the compiler keeps apart from others. */
export type Brand<Value, Name extends string> = Value & { readonly [brand]: Name };
