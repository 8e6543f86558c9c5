export { createTestDatabase, freshTenantId } from './postgres/index.js';
export type { TestDatabase } from './postgres/index.js';
export { waitFor } from './wait-for/index.js';
export { chromiumPath, chromiumPresent, chromiumSkipNote, launchChromium } from './chromium/index.js';
export type { ChromiumSession } from './chromium/index.js';
