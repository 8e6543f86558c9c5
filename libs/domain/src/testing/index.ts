export { deciderSpecification, runCommands } from './decider-specification.js';
export type { CommandRun, DeciderGiven, DeciderWhen, DomainErrorClass } from './decider-specification.js';
