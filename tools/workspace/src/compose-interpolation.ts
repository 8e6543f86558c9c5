/** A variable compose requires (`${VAR:?…}` or `${VAR?…}`) that the environment does not give. */
export class MissingComposeVariableError extends Error {
  override readonly name = 'MissingComposeVariableError';
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`required variable ${variable} is missing a value: ${reason}`);
  }
}

const reference = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

const interpolateText = (text: string, env: Readonly<Record<string, string | undefined>>): string =>
  text.replace(reference, (match, braced?: string, operator?: string, argument?: string, bare?: string) => {
    if (match === '$$') return '$';
    const name = (braced ?? bare) as string;
    const value = env[name];
    const unset = operator?.startsWith(':') ? value === undefined || value === '' : value === undefined;
    switch (operator) {
      case ':-':
      case '-':
        return unset ? (argument ?? '') : (value as string);
      case ':?':
      case '?':
        if (unset) throw new MissingComposeVariableError(name, argument ?? '');
        return value as string;
      case undefined:
        return value ?? '';
      default:
        throw new Error(`unknown interpolation operator ${operator}`);
    }
  });

/**
 * Compose's variable interpolation over a parsed compose file's values: `$VAR`, `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?error}`, `${VAR?error}` and `$$`. A required variable that is missing throws, as
 * `docker compose config` fails.
 *
 * @example
 * interpolateCompose(parse(text), process.env);
 */
export const interpolateCompose = (
  node: unknown,
  env: Readonly<Record<string, string | undefined>>,
): unknown => {
  if (typeof node === 'string') return interpolateText(node, env);
  if (Array.isArray(node)) return node.map((item) => interpolateCompose(item, env));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, interpolateCompose(value, env)]),
    );
  }
  return node;
};
