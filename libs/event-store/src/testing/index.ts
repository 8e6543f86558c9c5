export { describeEventStoreContract } from './event-store-contract.js';
export type { ContractFactory, ContractOptions, ContractSubject, HeldAppend } from './contract-subject.js';
export {
  assertLateCommitProperty,
  lateCommitExample,
  runLateCommitScenario,
} from './late-commit-property.js';
export type { LateCommitStep } from './late-commit-property.js';
export {
  createTestClock,
  expectWrongRevision,
  freshStream,
  readAllUntil,
  someEvents,
} from './contract-fixtures.js';
export type { TestClock } from './contract-fixtures.js';
export { createNaiveGlobalReader } from './naive-global-reader.js';
export { createPostgresContractSubject } from './postgres-contract-subject.js';
export { startEventStoreDb } from './eventstoredb-target.js';
export type { EventStoreTarget } from './eventstoredb-target.js';
export * from './eventstoredb-wire/index.js';
