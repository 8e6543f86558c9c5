/** A JSON value as this library accepts and produces it. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

/** A JSON object: a plain object whose values are JSON values. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}
