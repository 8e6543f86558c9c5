/**
 * Module resolution hooks for the HTTP bench's unkeyed api (registered by `plain-api.ts`): the api's engine plugin
 * (`apps/api/src/http/plugins/idempotency-engine.plugin.ts`) gets `plain-engine-module.ts` where it imports
 * `@once/idempotency`, so its `createIdempotencyEngine` is the plain engine. Every other import, the api's own
 * included, resolves as it always does.
 */
const enginePlugin = '/apps/api/src/http/plugins/idempotency-engine.plugin.ts';
const plainEngineModule = new URL('./plain-engine-module.ts', import.meta.url).href;

interface ResolveContext {
  readonly parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

export const resolve = async (
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<unknown> =>
  specifier === '@once/idempotency' && context.parentURL?.endsWith(enginePlugin) === true
    ? { url: plainEngineModule, format: 'module', shortCircuit: true }
    : nextResolve(specifier, context);
