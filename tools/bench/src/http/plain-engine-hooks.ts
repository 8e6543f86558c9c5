import { extname } from 'node:path';

/**
 * Module resolution hooks for the HTTP bench's unkeyed api (registered by `plain-api.ts`): the api's engine plugin
 * (`apps/api/src/http/plugins/idempotency-engine.plugin.ts`) gets `plain-engine-module.ts` where it imports
 * `@once/idempotency`, so its `createIdempotencyEngine` is the plain engine. Every other import, the api's own
 * included, resolves as it always does. Both run from their sources or, as the bench spawns them, from their builds.
 */
const enginePlugin = /\/apps\/api\/(src|dist)\/http\/plugins\/idempotency-engine\.plugin\.(ts|js)$/;
const plainEngineModule = new URL(`./plain-engine-module${extname(import.meta.url)}`, import.meta.url).href;

interface ResolveContext {
  readonly parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

export const resolve = async (
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<unknown> =>
  specifier === '@once/idempotency' && enginePlugin.test(context.parentURL ?? '')
    ? { url: plainEngineModule, format: 'module', shortCircuit: true }
    : nextResolve(specifier, context);
