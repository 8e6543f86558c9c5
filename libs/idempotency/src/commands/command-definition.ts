import type { CommandHandler } from '../engine/command-handler.js';
import { upcastCommand } from './command-upcasters.js';
import type { CommandUpcasters } from './command-upcasters.js';
import type { TypedCommand } from './typed-command.js';

/** A route's validated input: what a command is built from, and what the request fingerprint covers. */
export interface CommandInput {
  readonly params: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/**
 * A command type: its name and version as the key log stores them, and how a route's validated input becomes the
 * typed command. Two commands may share a route (cash and card payments): `fromInput` answers undefined for input
 * that is not its own, so the route's schema tells them apart.
 */
export interface CommandDefinition<Data> {
  /** Stored as `commandType`; the completer finds the handler by it. */
  readonly type: string;
  /** Stored as `commandVersion`; bump it when `Data` changes shape, and add the older version's step to `upcasters`. */
  readonly version: number;
  readonly fromInput: (input: CommandInput) => Data | undefined;
  /**
   * How a command recorded at an older version becomes this one before the completer resumes it: one upcaster per
   * older version, under the version it upcasts from (`{ 1: v1ToV2 }` for a definition at version 2).
   */
  readonly upcasters?: CommandUpcasters;
  /**
   * Fields that hold a secret (a card token): the key log stores `hmac-sha256:<hex>` of each instead (an HMAC under
   * the engine's `secretReferenceKeys`), so neither the stored command nor a resume reveals it, and the request
   * fingerprint hashes a body field of the same name as that reference. The live handler gets the real value; a
   * resumed one only the reference.
   */
  readonly secretFields?: readonly string[];
}

/** The typed command of a definition (`CommandOf<typeof payInvoiceByCard>`). */
export type CommandOf<Definition> = Definition extends CommandDefinition<infer Data> ? Data : never;

/**
 * Declares a command type.
 *
 * @example
 * const incrementCounter = defineCommand({
 *   type: 'IncrementCounter',
 *   version: 1,
 *   fromInput: ({ params, body }) => ({ counterId: String(params['id']), by: (body as { by: number }).by }),
 * });
 */
export const defineCommand = <Data>(definition: CommandDefinition<Data>): CommandDefinition<Data> =>
  definition;

/** A command type paired with the handler that runs it (see `bindCommand`). */
export interface BoundCommand {
  readonly type: string;
  /** The definition's current version, and the upcasters that lead its older versions there. */
  readonly version: number;
  readonly upcasters?: CommandUpcasters;
  /** Typed against its definition's command when bound; the map hands it back only for that definition. */
  readonly handler: CommandHandler<never>;
}

/** Pairs a definition with its handler, checking that both speak of the same command. */
export const bindCommand = <Data>(
  definition: CommandDefinition<Data>,
  handler: CommandHandler<Data>,
): BoundCommand => ({
  type: definition.type,
  version: definition.version,
  ...(definition.upcasters === undefined ? {} : { upcasters: definition.upcasters }),
  handler,
});

/**
 * Every command's handler by command type: a route binds its commands' handlers here once, when it is declared, and
 * the completer resumes a key from the `commandType` its log recorded. It is also the upcaster registry: each type's
 * current version and upcasters, from its definition, so a command recorded at an older version resumes as the
 * current one.
 */
export interface CommandHandlers {
  handlerOf<Data>(definition: CommandDefinition<Data>): CommandHandler<Data>;
  /** The handler of a recorded command type, undefined for a type this process does not know. */
  byType(type: string): CommandHandler<unknown> | undefined;
  /**
   * A recorded command at the version its bound definition has now (see `upcastCommand`); undefined for a type this
   * process does not know, or a version its upcasters do not lead on from.
   */
  upcast(command: TypedCommand): TypedCommand | undefined;
}

/**
 * Builds the map of command handlers; a command type given twice is a programming error.
 *
 * @example
 * const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
 */
export const commandHandlers = (bound: readonly BoundCommand[]): CommandHandlers => {
  const byType = new Map<string, CommandHandler<never>>();
  const versions = new Map<string, BoundCommand>();
  for (const command of bound) {
    const { type, handler } = command;
    if (byType.has(type)) throw new Error(`command type ${type} is bound twice`);
    byType.set(type, handler);
    versions.set(type, command);
  }
  return {
    handlerOf: <Data>(definition: CommandDefinition<Data>) => {
      const handler = byType.get(definition.type);
      if (handler === undefined) throw new Error(`no handler is bound to command type ${definition.type}`);
      // The map holds the handler bound to this very definition (bindCommand checked their types).
      return handler as CommandHandler<Data>;
    },
    byType: (type) => byType.get(type) as CommandHandler<unknown> | undefined,
    upcast: (command) => {
      const current = versions.get(command.type);
      return current === undefined ? undefined : upcastCommand(command, current);
    },
  };
};
