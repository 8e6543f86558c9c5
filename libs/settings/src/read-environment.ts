import type { z } from 'zod';
import { renamedSettingsIn } from './renamed-settings.js';

/** A setting set under its old name: the process refuses to start rather than quietly ignore it. */
export class RenamedSettingError extends Error {
  constructor(readonly renamed: readonly string[]) {
    super(
      `renamed settings: ${renamed.join('; ')}. Set the new names (and unset the old ones) and start again.`,
    );
    this.name = 'RenamedSettingError';
  }
}

/**
 * Reads a main's settings: refuses an old name of any of them that is still set, then parses (defaults, types).
 *
 * @throws RenamedSettingError when an old name is set; the schema's ZodError when a value is invalid
 * @example
 * const env = readEnvironment(onceEnvironment.pick({ DATABASE_URL: true, ONCE_LOG_LEVEL: true }));
 */
export const readEnvironment = <Schema extends z.ZodObject>(
  schema: Schema,
  env: Readonly<Record<string, string | undefined>> = process.env,
): z.output<Schema> => {
  const renamed = renamedSettingsIn(env, Object.keys(schema.shape));
  if (renamed.length > 0) throw new RenamedSettingError(renamed);
  return schema.parse(env);
};
