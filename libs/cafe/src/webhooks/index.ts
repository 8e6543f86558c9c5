export { inboxStream, receiveGatewayEvent } from './gateway-inbox.js';
export type { GatewayInboxOptions, InboxOutcome } from './gateway-inbox.js';
export { gatewayEventSchema } from './webhook.schemas.js';
export type { GatewayEvent } from './webhook.schemas.js';
