import { createRequire } from 'node:module';

// The package reads its own manifest by name (its `./package.json` export), wherever this file was built to.
const readApiVersion = (): string => {
  const manifest: unknown = createRequire(import.meta.url)('@once/api/package.json');
  if (typeof manifest === 'object' && manifest !== null && 'version' in manifest) {
    const { version } = manifest;
    if (typeof version === 'string') return version;
  }
  throw new Error("@once/api's package.json has no version");
};

/** The api package's version (`apps/api/package.json`): the OpenAPI document's `info.version`. */
export const apiVersion: string = readApiVersion();
