export { cardSettlementsProjection, cardSettlementsTable } from './card-settlements.projection.js';
export type { CardSettlementRow, CardSettlementStatus } from './card-settlements.projection.js';
export { countPaymentsNeedingAttention, listPaymentsNeedingAttention } from './card-settlements.queries.js';
export type { PaymentNeedingAttentionReadModel } from './card-settlements.queries.js';
