export { deciderSpecification, runCommands } from './decider-specification.js';
export type { CommandRun, DeciderGiven, DeciderWhen, DomainErrorClass } from './decider-specification.js';
export { menuOf } from './menu-of.js';
export type { TestMenuItem } from './menu-of.js';
