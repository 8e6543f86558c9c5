import type { GaveUp, IdempotentClient, PostOptions, Rejected, Succeeded } from '../client/index.js';
import type { OnceCommandRoutes } from './once-routes.generated.js';

/** A command route of the Once api, as `'POST /invoices/{id}/payments'`. */
export type OnceCommandRoute = keyof OnceCommandRoutes;

/** What a command route takes: its path parameters (when it has any) and its body. */
export type OnceCommandInput<Route extends OnceCommandRoute> =
  (OnceCommandRoutes[Route]['params'] extends Record<string, never>
    ? { readonly params?: undefined }
    : { readonly params: OnceCommandRoutes[Route]['params'] }) & {
    readonly body: OnceCommandRoutes[Route]['body'];
  };

/** A command's outcome, its success body typed as the route answers it. */
export type OnceCommandOutcome<Route extends OnceCommandRoute> =
  (Omit<Succeeded, 'body'> & { readonly body: OnceCommandRoutes[Route]['response'] }) | Rejected | GaveUp;

/** Typed calls of the Once api's own command routes over an {@link IdempotentClient}. */
export interface OnceApi {
  /** Sends a command under a new key (as `client.post`), with its route's body and answer types. */
  command<Route extends OnceCommandRoute>(
    route: Route,
    input: OnceCommandInput<Route>,
    options?: PostOptions,
  ): Promise<OnceCommandOutcome<Route>>;
}

const PATH_PARAMETER = /\{(\w+)\}/g;

const routePath = (route: OnceCommandRoute, params: Readonly<Record<string, string>> = {}): string =>
  route.slice('POST '.length).replace(PATH_PARAMETER, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`${route} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });

/**
 * Wraps a client with the Once api's command routes, typed from the api's OpenAPI document (a test keeps the types
 * equal to what the api serves at `/docs/json`).
 *
 * @param client the idempotent client that stores and sends each command.
 * @example
 * const once = createOnceApi(client);
 * const paid = await once.command('POST /invoices/{id}/payments', {
 *   params: { id: invoiceId },
 *   body: { method: 'cash', amount: 450, currency: 'EUR' },
 * });
 * if (paid.kind === 'succeeded') console.log(paid.body.status); // 'recorded'
 */
export const createOnceApi = (client: IdempotentClient): OnceApi => ({
  command: async <Route extends OnceCommandRoute>(
    route: Route,
    input: OnceCommandInput<Route>,
    options?: PostOptions,
  ) => {
    const params = input.params as Readonly<Record<string, string>> | undefined;
    // The success body is whatever the api answered; its type is the route's documented answer.
    return (await client.post(routePath(route, params), input.body, options)) as OnceCommandOutcome<Route>;
  },
});
