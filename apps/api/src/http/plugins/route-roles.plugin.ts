import fp from 'fastify-plugin';
import type { RouteOptions } from 'fastify';
import type { RouteRole } from '../auth/index.js';

/** A route of the app and the role it declares (`undefined`: none, which keeps the app from starting). */
export interface DeclaredRoute {
  readonly method: string;
  readonly url: string;
  readonly role: RouteRole | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app (HEAD routes included) with the role it declares, in the order they were declared. */
    declaredRoutes(): readonly DeclaredRoute[];
  }
}

/**
 * Keeps the list of every route and the role it declares (`config.role`), and refuses to start (`ready` rejects,
 * naming them) while a route declares none: who may call a route is said where the route is, or it does not run.
 * Registered first, at the root, so it sees every route.
 *
 * @example
 * await app.register(routeRolesPlugin);
 * app.get('/health', { config: { role: 'public' } }, async () => ({ status: 'ok' }));
 */
export const routeRolesPlugin = fp(
  async (app) => {
    const routes: { readonly method: string; readonly url: string; readonly options: RouteOptions }[] = [];
    // The role is read later, not here: hooks of a plugin's own scope (`declarePublic`) run after this one.
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url, options: route });
    });
    app.decorate('declaredRoutes', () =>
      routes.map(({ method, url, options }) => ({ method, url, role: options.config?.role })),
    );
    app.addHook('onReady', async () => {
      const undeclared = app.declaredRoutes().filter((route) => route.role === undefined);
      if (undeclared.length > 0) {
        throw new Error(
          `every route must declare who may call it (config: { role }); these declare none: ${undeclared
            .map((route) => `${route.method} ${route.url}`)
            .join(', ')}`,
        );
      }
    });
  },
  { name: 'once-route-roles', fastify: '5.x' },
);
