export { createKitchenDisplay, kitchenConsumer } from './kitchen-display.js';
export type { KitchenDisplayDeps } from './kitchen-display.js';
export { ensureRegistered, kitchenEventTypes } from './endpoint-registration.js';
export type { RegistrationOptions } from './endpoint-registration.js';
export { applyOrderEvent, listTickets, migrateKitchen } from './kitchen-tickets.js';
export type { KitchenTicket, OrderWebhook, TicketStatus } from './kitchen-tickets.js';
