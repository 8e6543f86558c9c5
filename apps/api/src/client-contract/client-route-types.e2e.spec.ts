import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { clientRouteTypesSource, useTestApi } from '../testing/index.js';
import type { OpenApiDocument } from '../testing/index.js';

const generatedFile = fileURLToPath(
  new URL('../../../../libs/client/src/once-api/once-routes.generated.ts', import.meta.url),
);

const env = useTestApi();

describe("@once/client's typed routes", () => {
  it("are the api's command routes as /docs/json describes them (run with -u to write them again)", async () => {
    const document = (await (await fetch(`${env.api.url}/docs/json`)).json()) as OpenApiDocument;
    const source = await format(clientRouteTypesSource(document), {
      ...(await resolveConfig(generatedFile)),
      filepath: generatedFile,
    });
    await expect(source).toMatchFileSnapshot(generatedFile);
  });
});
