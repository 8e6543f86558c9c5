import { z } from 'zod';
import { defineCommand } from '@once/idempotency';
import type { CommandDefinition } from '@once/idempotency';

/**
 * A command built by a zod schema over the route's validated `{ params, body }`: the schema accepts only its own
 * input (so two commands can share a route) and its output is the typed command. `secretFields` names the fields the
 * key log stores only as references (see `CommandDefinition.secretFields`).
 *
 * @example
 * export const serveOrder = routeCommand('ServeOrder', 1, z.object({ params: orderIdParams }).transform(
 *   ({ params }) => ({ orderId: params.id }),
 * ));
 */
export const routeCommand = <Schema extends z.ZodType>(
  type: string,
  version: number,
  schema: Schema,
  options: { readonly secretFields?: readonly (keyof z.output<Schema> & string)[] } = {},
): CommandDefinition<z.output<Schema>> =>
  defineCommand({
    type,
    version,
    ...(options.secretFields ? { secretFields: options.secretFields } : {}),
    fromInput: (input) => {
      const parsed = schema.safeParse(input);
      return parsed.success ? parsed.data : undefined;
    },
  });

/** Commands that need no input take an empty object, or no body at all. */
export const emptyBody = z.strictObject({}).optional();
