export { aggregateCommand, decideOrRefuse, foldSnapshot } from './aggregate-command.js';
export type { AggregateCommandSpec } from './aggregate-command.js';
export { createCommandHandlers } from './command-handlers.js';
export type { CommandHandlerDeps } from './command-handlers.js';
export { emptyBody, routeCommand } from './route-command.js';
