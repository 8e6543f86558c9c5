import type { Problem } from './problem.js';

/** What a problem type says to a client: the status it is answered with, a title and a description. */
export interface ProblemText {
  readonly title: string;
  readonly description: string;
}

/** One documented problem type. */
export interface ProblemType extends ProblemText {
  readonly status: number;
  /** Its answers carry `Link: <the type's page>; rel="describedby"`: a refusal the client fixes by reading it. */
  readonly describedBy?: boolean;
}

/** Where a catalogue's types are documented: each `type` URI is `base` plus the type's name. */
export interface ProblemCatalogSettings {
  readonly base: string;
  /** The `Link` header of a `describedBy` type, from the type's URI. Default `<uri>; rel="describedby"`. */
  readonly link?: (uri: string) => string;
}

/** An RFC 9457 problem document. */
export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly [extension: string]: unknown;
}

/** How a problem is answered: its status, its headers and its `application/problem+json` body. */
export interface ProblemAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ProblemDocument;
}

/** New types, or new words for types the catalogue has already (their status and `Link` stay). */
export type ProblemExtension<Known extends string, More extends string> = {
  readonly [Type in More]: Type extends Known ? ProblemText : ProblemType;
};

const defaultLink = (uri: string): string => `<${uri}>; rel="describedby"`;

/**
 * Documented problem types (RFC 9457), in the order their documentation lists them, and how each is answered.
 * A library publishes its catalogue; an app extends it with its own types, so every problem comes from one place.
 */
export class ProblemCatalog<Type extends string> {
  private constructor(
    private readonly types: ReadonlyMap<Type, ProblemType>,
    readonly settings: ProblemCatalogSettings,
  ) {}

  /**
   * A catalogue of `types`, documented under `settings.base`.
   *
   * @example
   * const problems = ProblemCatalog.of({ 'not-found': { status: 404, title: 'No such thing', description: '…' } }, { base: '/problems/' });
   */
  static of<Type extends string>(
    types: Readonly<Record<Type, ProblemType>>,
    settings: ProblemCatalogSettings,
  ): ProblemCatalog<Type> {
    return new ProblemCatalog(new Map(Object.entries(types) as [Type, ProblemType][]), settings);
  }

  /**
   * This catalogue with more types (listed after the ones `more` leaves out) and, for types it has already, the
   * words `more` gives them, in `more`'s order; `settings` moves where they are documented.
   *
   * @example
   * const api = idempotencyProblems.extend({ 'not-found': { status: 404, title: '…', description: '…' } }, { base: '/problems/' });
   */
  extend<More extends string>(
    more: ProblemExtension<Type, More>,
    settings: Partial<ProblemCatalogSettings> = {},
  ): ProblemCatalog<Type | More> {
    const added = Object.entries(more) as [More, ProblemText | ProblemType][];
    const kept = [...this.types].filter(([type]) => !Object.hasOwn(more, type));
    const entries = added.map(([type, text]): [More, ProblemType] => {
      const known = this.types.get(type as string as Type);
      return [
        type,
        known ? { ...known, title: text.title, description: text.description } : (text as ProblemType),
      ];
    });
    return new ProblemCatalog<Type | More>(new Map<Type | More, ProblemType>([...kept, ...entries]), {
      ...this.settings,
      ...settings,
    });
  }

  /** Whether `type` is documented here. */
  has(type: string): type is Type {
    return this.types.has(type as Type);
  }

  /** The documentation of `type`. */
  describe(type: Type): ProblemType {
    const documented = this.types.get(type);
    if (!documented) throw new Error(`problem type ${type} is not in the catalogue`);
    return documented;
  }

  /** The URI of `type` (a problem's `type` member, the address of its documentation). */
  uri(type: Type): string {
    return `${this.settings.base}${type}`;
  }

  /** Every documented type, in order. */
  entries(): [Type, ProblemType][] {
    return [...this.types];
  }

  /**
   * The answer to `problem`: the type's status, the problem's headers, `Link` for a `describedBy` type and
   * `Retry-After` when it says when to retry, and the body `{ type, title, status, detail?, ...extensions }`.
   *
   * @example
   * const { status, headers, body } = catalog.answer(new Problem('not-found', { detail: 'no order o-1' }));
   */
  answer(problem: Problem<Type>): ProblemAnswer {
    const documented = this.describe(problem.type);
    const { detail, extensions, headers, retryAfterSeconds } = problem.options;
    const uri = this.uri(problem.type);
    return {
      status: documented.status,
      headers: {
        ...headers,
        ...(documented.describedBy ? { link: (this.settings.link ?? defaultLink)(uri) } : {}),
        ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
      },
      body: {
        type: uri,
        title: documented.title,
        status: documented.status,
        ...(detail ? { detail } : {}),
        ...extensions,
      },
    };
  }
}

/** The types of a catalogue. */
export type ProblemTypeOf<Catalog> = Catalog extends ProblemCatalog<infer Type> ? Type : never;
