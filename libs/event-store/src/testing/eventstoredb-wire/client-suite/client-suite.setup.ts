import { vi } from 'vitest';
import { clientSuiteServerVersion } from './client-suite-cases.js';

// The client's suite is written for Jest: `jest.fn`, `jest.spyOn` map onto Vitest's `vi`, and `matchServerVersion`
// reads the version the suite's own Jest environment would have asked the server for.
Object.assign(globalThis, {
  jest: vi,
  capabilities: { serverVersion: clientSuiteServerVersion, supportedFeatures: [] },
});
