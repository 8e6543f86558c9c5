import { CanonicalJsonError } from '../errors/index.js';
import type { CanonicalJsonErrorCode } from '../errors/index.js';
import { appendPointer } from '../json/json-pointer.js';
import { hasLoneSurrogate } from '../json/unicode.js';
import type { JsonValue } from '../json/index.js';

type MutableObject = Record<string, JsonValue>;
type Frame =
  | { readonly kind: 'array'; readonly items: JsonValue[] }
  | { readonly kind: 'object'; readonly members: MutableObject; key: string };

const Char = {
  Tab: 0x09,
  LineFeed: 0x0a,
  CarriageReturn: 0x0d,
  Space: 0x20,
  Quote: 0x22,
  Plus: 0x2b,
  Comma: 0x2c,
  Minus: 0x2d,
  Dot: 0x2e,
  Slash: 0x2f,
  Zero: 0x30,
  One: 0x31,
  Nine: 0x39,
  Colon: 0x3a,
  UpperE: 0x45,
  OpenBracket: 0x5b,
  Backslash: 0x5c,
  CloseBracket: 0x5d,
  LowerE: 0x65,
  OpenBrace: 0x7b,
  CloseBrace: 0x7d,
} as const;

const simpleEscapes: Readonly<Record<number, string>> = {
  [Char.Quote]: '"',
  [Char.Backslash]: '\\',
  [Char.Slash]: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

const isDigit = (code: number): boolean => code >= Char.Zero && code <= Char.Nine;

const hexValue = (code: number): number => {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
};

const setMember = (members: MutableObject, key: string, value: JsonValue): void => {
  // Plain assignment to "__proto__" would replace the prototype; JSON.parse creates an own property instead.
  if (key === '__proto__') {
    Object.defineProperty(members, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    members[key] = value;
  }
};

/**
 * A single-pass JSON (RFC 8259) parser with an explicit stack instead of recursion, so its cost is linear in the
 * text and its stack use does not grow with nesting. It reads the grammar JSON.parse reads and refuses, beyond
 * that, duplicate keys, nesting deeper than `maxDepth`, unpaired surrogates and numbers that overflow to Infinity.
 */
export class JsonTextParser {
  private position = 0;
  private readonly stack: Frame[] = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  parseDocument(): JsonValue {
    for (;;) {
      let value = this.parseValueOrOpen();
      if (value === undefined) continue;
      for (;;) {
        const frame = this.stack.at(-1);
        if (frame === undefined) {
          this.skipWhitespace();
          if (this.position < this.text.length)
            this.fail('invalid-json', 'unexpected text after the JSON value');
          return value;
        }
        if (frame.kind === 'array') {
          frame.items.push(value);
        } else {
          setMember(frame.members, frame.key, value);
        }
        if (!this.continueContainer(frame)) break;
        this.stack.pop();
        value = frame.kind === 'array' ? frame.items : frame.members;
      }
    }
  }

  /** Reads a scalar, an empty container, or opens a non-empty container (returns undefined, a child comes next). */
  private parseValueOrOpen(): JsonValue | undefined {
    this.skipWhitespace();
    const code = this.text.charCodeAt(this.position);
    if (code === Char.OpenBracket) {
      this.checkDepth();
      this.position++;
      if (this.skipWhitespaceAndConsume(Char.CloseBracket)) return [];
      this.stack.push({ kind: 'array', items: [] });
      return undefined;
    }
    if (code === Char.OpenBrace) {
      this.checkDepth();
      this.position++;
      if (this.skipWhitespaceAndConsume(Char.CloseBrace)) return {};
      const frame: Frame = { kind: 'object', members: {}, key: '' };
      this.stack.push(frame);
      frame.key = this.parseKey(frame.members);
      return undefined;
    }
    if (code === Char.Quote) return this.parseString();
    if (code === Char.Minus || isDigit(code)) return this.parseNumber();
    if (this.text.startsWith('true', this.position)) return this.consumeLiteral(4, true);
    if (this.text.startsWith('false', this.position)) return this.consumeLiteral(5, false);
    if (this.text.startsWith('null', this.position)) return this.consumeLiteral(4, null);
    return this.fail(
      'invalid-json',
      this.position >= this.text.length ? 'unexpected end of text' : 'unexpected character',
    );
  }

  /** After a member: `,` means another child follows (false); a closing bracket ends the container (true). */
  private continueContainer(frame: Frame): boolean {
    this.skipWhitespace();
    const code = this.text.charCodeAt(this.position);
    if (code === Char.Comma) {
      this.position++;
      if (frame.kind === 'object') {
        this.skipWhitespace();
        frame.key = this.parseKey(frame.members);
      }
      return false;
    }
    const closing = frame.kind === 'array' ? Char.CloseBracket : Char.CloseBrace;
    if (code === closing) {
      this.position++;
      return true;
    }
    return this.fail('invalid-json', frame.kind === 'array' ? 'expected , or ]' : 'expected , or }');
  }

  private parseKey(members: MutableObject): string {
    if (this.text.charCodeAt(this.position) !== Char.Quote)
      this.fail('invalid-json', 'expected a string key');
    const keyOffset = this.position;
    const key = this.parseString();
    if (Object.hasOwn(members, key)) {
      this.failAt('duplicate-key', keyOffset, `duplicate key ${JSON.stringify(key)}`, key);
    }
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) !== Char.Colon) this.fail('invalid-json', 'expected :');
    this.position++;
    return key;
  }

  private parseString(): string {
    const { text } = this;
    const openingOffset = this.position;
    let position = this.position + 1;
    let copiedFrom = position;
    let value = '';
    for (;;) {
      if (position >= text.length) {
        this.position = position;
        this.fail('invalid-json', 'unterminated string');
      }
      const code = text.charCodeAt(position);
      if (code === Char.Quote) break;
      if (code === Char.Backslash) {
        value += text.slice(copiedFrom, position);
        position = this.readEscape(position, (decoded) => {
          value += decoded;
        });
        copiedFrom = position;
        continue;
      }
      if (code < Char.Space) {
        this.position = position;
        this.fail('invalid-json', 'control character in string');
      }
      position++;
    }
    value += text.slice(copiedFrom, position);
    this.position = position + 1;
    if (hasLoneSurrogate(value)) {
      this.failAt('lone-surrogate', openingOffset, 'string holds an unpaired UTF-16 surrogate');
    }
    return value;
  }

  /** Decodes the escape starting at the backslash at `backslashAt`; returns the offset after it. */
  private readEscape(backslashAt: number, emit: (decoded: string) => void): number {
    const code = this.text.charCodeAt(backslashAt + 1);
    const simple = simpleEscapes[code];
    if (simple !== undefined) {
      emit(simple);
      return backslashAt + 2;
    }
    if (code === 0x75) {
      let codeUnit = 0;
      for (let index = backslashAt + 2; index < backslashAt + 6; index++) {
        const digit = hexValue(this.text.charCodeAt(index));
        if (digit < 0) {
          this.position = index;
          this.fail('invalid-json', 'expected four hex digits after \\u');
        }
        codeUnit = codeUnit * 16 + digit;
      }
      emit(String.fromCharCode(codeUnit));
      return backslashAt + 6;
    }
    this.position = backslashAt + 1;
    return this.fail('invalid-json', 'invalid escape');
  }

  private parseNumber(): number {
    const { text } = this;
    const start = this.position;
    let position = start;
    if (text.charCodeAt(position) === Char.Minus) position++;
    const first = text.charCodeAt(position);
    if (first === Char.Zero) {
      position++;
    } else if (first >= Char.One && first <= Char.Nine) {
      while (isDigit(text.charCodeAt(position))) position++;
    } else {
      this.position = position;
      this.fail('invalid-json', 'expected a digit');
    }
    if (text.charCodeAt(position) === Char.Dot) {
      position = this.requireDigits(position + 1);
    }
    const exponent = text.charCodeAt(position);
    if (exponent === Char.LowerE || exponent === Char.UpperE) {
      position++;
      const sign = text.charCodeAt(position);
      if (sign === Char.Plus || sign === Char.Minus) position++;
      position = this.requireDigits(position);
    }
    this.position = position;
    const value = Number(text.slice(start, position));
    if (!Number.isFinite(value)) {
      this.failAt('non-finite-number', start, 'number is too large to be finite');
    }
    return value;
  }

  private requireDigits(from: number): number {
    let position = from;
    while (isDigit(this.text.charCodeAt(position))) position++;
    if (position === from) {
      this.position = position;
      this.fail('invalid-json', 'expected a digit');
    }
    return position;
  }

  private consumeLiteral<Literal extends JsonValue>(length: number, literal: Literal): Literal {
    this.position += length;
    return literal;
  }

  private checkDepth(): void {
    if (this.stack.length + 1 > this.maxDepth) this.fail('too-deep', `nesting deeper than ${this.maxDepth}`);
  }

  private skipWhitespace(): void {
    const { text } = this;
    let position = this.position;
    for (;;) {
      const code = text.charCodeAt(position);
      if (code !== Char.Space && code !== Char.LineFeed && code !== Char.CarriageReturn && code !== Char.Tab)
        break;
      position++;
    }
    this.position = position;
  }

  private skipWhitespaceAndConsume(code: number): boolean {
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) !== code) return false;
    this.position++;
    return true;
  }

  private pointer(extraToken?: string): string {
    const tokens: (string | number)[] = this.stack.map((frame) =>
      frame.kind === 'array' ? frame.items.length : frame.key,
    );
    if (extraToken !== undefined) tokens[tokens.length - 1] = extraToken;
    return tokens.reduce<string>(appendPointer, '');
  }

  private fail(code: CanonicalJsonErrorCode, message: string): never {
    return this.failAt(code, this.position, message);
  }

  private failAt(code: CanonicalJsonErrorCode, offset: number, message: string, key?: string): never {
    throw new CanonicalJsonError(
      code,
      { pointer: this.pointer(key), offset },
      `${message} at offset ${offset}`,
    );
  }
}
