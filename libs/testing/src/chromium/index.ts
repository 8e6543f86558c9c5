export { chromiumPath, chromiumPresent, chromiumSkipNote, launchChromium } from './launch-chromium.js';
export type { ChromiumSession } from './launch-chromium.js';
