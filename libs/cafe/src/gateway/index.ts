export { createGatewayClient, isUnknownGatewayOutcome } from './gateway-client.js';
export type { ChargeInput, GatewayCharge, GatewayClient, GatewayRefusal } from './gateway-client.js';
