export {
  appendLedgerWorkload,
  foldLedger,
  ledgerAccountsTable,
  ledgerProjection,
  ledgerStream,
  seededRandom,
} from './ledger-projection.js';
export type { LedgerAccountRow, LedgerEvent } from './ledger-projection.js';
