import { createRequire } from 'node:module';
import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The OpenTelemetry API, as `@opentelemetry/api` exports it. */
export type OpenTelemetry = typeof OpenTelemetryApi;

/**
 * `@opentelemetry/api` when it is installed (an optional peer), else undefined: the engine then traces nothing. Loaded
 * with `require`, synchronously; every copy of the API (CommonJS or ESM, any 1.x) shares the one global registration,
 * so the SDK an app registers through its own copy is the one found here.
 */
export const loadOpenTelemetry = (): OpenTelemetry | undefined => {
  try {
    return createRequire(import.meta.url)('@opentelemetry/api') as OpenTelemetry;
  } catch {
    return undefined;
  }
};
