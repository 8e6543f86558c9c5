export {
  appendLedgerWorkload,
  foldLedger,
  ledgerAccountsTable,
  ledgerProjection,
  ledgerStream,
  seededRandom,
} from './ledger-projection.js';
export type { LedgerAccountRow, LedgerEvent } from './ledger-projection.js';
export { appendDomainWorkload, generateDomainWorkload } from './domain-workload.js';
export type { DomainWorkloadOptions, WorkloadAppend } from './domain-workload.js';
