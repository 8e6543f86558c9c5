export { bindCommand, commandHandlers, defineCommand } from './command-definition.js';
export type {
  BoundCommand,
  CommandDefinition,
  CommandHandlers,
  CommandInput,
  CommandOf,
} from './command-definition.js';
export type { TypedCommand } from './typed-command.js';
export { isSecretReference, secretReference } from './secret-reference.js';
export { upcastCommand } from './command-upcasters.js';
export type { CommandUpcaster, CommandUpcasters, CurrentCommandVersion } from './command-upcasters.js';
