export { bindCommand, commandHandlers, defineCommand } from './command-definition.js';
export type {
  BoundCommand,
  CommandDefinition,
  CommandHandlers,
  CommandInput,
  CommandOf,
  TypedCommand,
} from './command-definition.js';
export { isSecretReference, secretReference } from './secret-reference.js';
