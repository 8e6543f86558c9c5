import type { z } from 'zod';

/**
 * Reads a main's settings: parses them (defaults, types).
 *
 * @throws the schema's ZodError when a value is invalid
 * @example
 * const env = readEnvironment(onceEnvironment.pick({ DATABASE_URL: true, ONCE_LOG_LEVEL: true }));
 */
export const readEnvironment = <Schema extends z.ZodObject>(
  schema: Schema,
  env: Readonly<Record<string, string | undefined>> = process.env,
): z.output<Schema> => schema.parse(env);
