import type { CommandRegistry } from '../commands/command-registry.js';
import { webhookEndpointCommands } from './webhook-endpoint.handlers.js';

/**
 * The api's command registry with the webhook endpoint commands added, so the routes and the completer find their
 * handlers like every other command's.
 *
 * @example
 * app.decorate('commands', withWebhookEndpointCommands(createCommandRegistry(deps)));
 */
export const withWebhookEndpointCommands = (registry: CommandRegistry): CommandRegistry => ({
  handlerFor: (command) =>
    webhookEndpointCommands[`${command.method} ${command.route}`] ?? registry.handlerFor(command),
});
