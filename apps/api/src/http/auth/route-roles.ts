import type { RouteOptions } from 'fastify';
import { apiKeyRoles } from './api-keys.js';
import type { ApiKeyRole } from './api-keys.js';

/**
 * Who may call a route: `public` (no key: health, docs, metrics, the till and console pages, the signed gateway
 * webhook) or the least key role that may (`staff` < `operator` < `admin`; a higher role may do all a lower one may).
 */
export const routeRoles = ['public', ...apiKeyRoles] as const;
export type RouteRole = (typeof routeRoles)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may call the route: every route declares it where it is declared (`config: { role: 'admin' }`). The auth
     * plugin answers 403 `forbidden` to a key below it; the app does not start with a route that declares none.
     */
    readonly role?: RouteRole;
  }
}

/**
 * Whether a key of `keyRole` may call a route that needs `needed`: roles are ordered staff < operator < admin.
 *
 * @example
 * keyRoleAllows('operator', 'staff'); // true
 * keyRoleAllows('operator', 'admin'); // false
 */
export const keyRoleAllows = (keyRole: ApiKeyRole, needed: ApiKeyRole): boolean =>
  apiKeyRoles.indexOf(keyRole) >= apiKeyRoles.indexOf(needed);

/**
 * An `onRoute` hook that declares `public` on the routes a third-party plugin adds, which cannot declare it
 * themselves (Swagger UI's pages, the CORS preflight); `matches` narrows it to those routes.
 *
 * @example
 * docs.addHook('onRoute', declarePublic());
 * app.addHook('onRoute', declarePublic((route) => route.method === 'OPTIONS' && route.url === '*'));
 */
export const declarePublic =
  (matches: (route: RouteOptions) => boolean = () => true) =>
  (route: RouteOptions): void => {
    if (route.config?.role === undefined && matches(route))
      route.config = { ...route.config, role: 'public' };
  };
