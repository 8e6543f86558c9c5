export { createOnceApi } from './once-api.js';
export type { OnceApi, OnceCommandInput, OnceCommandOutcome, OnceCommandRoute } from './once-api.js';
