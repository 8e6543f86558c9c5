import type { TypedCommand } from './typed-command.js';

/** Turns a command's data at one version into its data at the next version. */
export type CommandUpcaster = (data: unknown) => unknown;

/**
 * A command type's upcasters, each under the version it upcasts from: `{ 1: v1ToV2, 2: v2ToV3 }`. They live on the
 * command's definition (`CommandDefinition.upcasters`), beside the version they lead to.
 */
export type CommandUpcasters = Readonly<Record<number, CommandUpcaster>>;

/** The version a command type has now, and how its older versions reach it. */
export interface CurrentCommandVersion {
  readonly version: number;
  readonly upcasters?: CommandUpcasters;
}

/**
 * A recorded command at its definition's current version, upcast one version at a time (v1 → v2 → …). Undefined when
 * no upcaster leads on from some version, or the command is newer than the definition (recorded by a newer build):
 * such a command is not resumed here.
 *
 * @example
 * upcastCommand({ type: 'IncrementCounter', version: 1, data: { by: 2 } }, incrementCounterV2);
 * // { type: 'IncrementCounter', version: 2, data: { by: 2, unit: 'items' } }
 */
export const upcastCommand = (
  command: TypedCommand,
  current: CurrentCommandVersion,
): TypedCommand | undefined => {
  if (command.version > current.version) return undefined;
  let data = command.data;
  for (let version = command.version; version < current.version; version += 1) {
    const upcast = current.upcasters?.[version];
    if (upcast === undefined) return undefined;
    data = upcast(data);
  }
  return { ...command, version: current.version, data };
};
