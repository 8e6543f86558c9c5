import { CanonicalJsonError } from '../errors/index.js';
import { resolveMaxDepth } from '../json/depth-limit.js';
import { appendPointer } from '../json/json-pointer.js';
import type { JsonLimits } from '../json/index.js';
import { isPlainObject } from '../json/plain-object.js';
import { serializeNumber } from './serialize-number.js';
import { serializeString } from './serialize-string.js';

const describe = (value: unknown): string => {
  if (typeof value !== 'object' || value === null) return typeof value;
  const prototype: unknown = Object.getPrototypeOf(value);
  const name: unknown =
    typeof prototype === 'object' && prototype !== null
      ? (prototype as { constructor?: { name?: unknown } }).constructor?.name
      : undefined;
  return typeof name === 'string' && name !== ''
    ? `an instance of ${name}`
    : 'an object with a foreign prototype';
};

/**
 * Writes a JSON value in the RFC 8785 (JCS) canonical form: no whitespace, object keys sorted by UTF-16 code units,
 * numbers as ECMAScript writes them, strings with the minimal escapes.
 *
 * Only plain objects, arrays, strings, finite numbers, booleans and null are accepted; anything else (undefined,
 * functions, symbols, BigInt, Date and other class instances, boxed primitives, sparse arrays, symbol keys) raises
 * a {@link CanonicalJsonError} with code `not-json`, as do NaN/Infinity (`non-finite-number`), unpaired surrogates
 * in strings or keys (`lone-surrogate`), cycles (`cycle`) and nesting deeper than `maxDepth` (`too-deep`).
 * `toJSON` methods are not called: convert values (e.g. dates to ISO strings) before canonicalising.
 *
 * @param value - the value to serialise.
 * @param options - `maxDepth`: how many arrays/objects may nest (default 64).
 * @returns the canonical JSON text.
 * @example
 * canonicalize({ b: [1e21, -0], a: 'x' }); // '{"a":"x","b":[1e+21,0]}'
 */
export const canonicalize = (value: unknown, options?: JsonLimits): string =>
  new CanonicalWriter(resolveMaxDepth(options)).write(value);

/**
 * One canonicalisation: where in the value it is (for an error's pointer) and the containers open around it. Its
 * methods are shared by every call, not closures built per call (a request's fingerprint canonicalises every time).
 */
class CanonicalWriter {
  private readonly path: (string | number)[] = [];
  private readonly ancestors = new Set<object>();
  /** The JSON pointer of the value being written, asked for only by an error. */
  private readonly locate: () => string;

  constructor(private readonly maxDepth: number) {
    this.locate = () => this.path.reduce<string>(appendPointer, '');
  }

  write(node: unknown): string {
    if (typeof node === 'string') return serializeString(node, this.locate);
    if (typeof node === 'number') return serializeNumber(node, this.locate);
    if (typeof node === 'boolean') return node ? 'true' : 'false';
    if (node === null) return 'null';
    if (Array.isArray(node)) return this.writeArray(node);
    if (typeof node === 'object' && isPlainObject(node))
      return this.writeObject(node as Readonly<Record<string, unknown>>);
    // undefined, functions, symbols, BigInt, and objects that are not plain (Date, Map, class instances, boxes).
    throw new CanonicalJsonError('not-json', { pointer: this.locate() }, `${describe(node)} is not JSON`);
  }

  private enterContainer(container: object): void {
    if (this.ancestors.has(container)) {
      throw new CanonicalJsonError('cycle', { pointer: this.locate() }, 'value contains itself');
    }
    if (this.ancestors.size + 1 > this.maxDepth) {
      throw new CanonicalJsonError(
        'too-deep',
        { pointer: this.locate() },
        `nesting deeper than ${this.maxDepth}`,
      );
    }
    this.ancestors.add(container);
  }

  private writeArray(array: readonly unknown[]): string {
    this.enterContainer(array);
    let serialized = '[';
    for (let index = 0; index < array.length; index++) {
      this.path.push(index);
      if (!(index in array)) {
        throw new CanonicalJsonError('not-json', { pointer: this.locate() }, 'sparse array hole is not JSON');
      }
      serialized += (index === 0 ? '' : ',') + this.write(array[index]);
      this.path.pop();
    }
    this.ancestors.delete(array);
    return `${serialized}]`;
  }

  private writeObject(object: Readonly<Record<string, unknown>>): string {
    this.enterContainer(object);
    if (Object.getOwnPropertySymbols(object).length > 0) {
      throw new CanonicalJsonError(
        'not-json',
        { pointer: this.locate() },
        'symbol-keyed properties are not JSON',
      );
    }
    // The default sort compares UTF-16 code units, which is exactly the order RFC 8785 §3.2.3 prescribes.
    const keys = Object.keys(object).sort();
    let serialized = '{';
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      this.path.push(key);
      serialized += `${index === 0 ? '' : ','}${serializeString(key, this.locate)}:${this.write(object[key])}`;
      this.path.pop();
    }
    this.ancestors.delete(object);
    return `${serialized}}`;
  }
}
