import type { ProjectionLogger } from '@once/projections';

const levels = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 } as const;
export type LogLevel = keyof typeof levels;

const serialise = (data: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    out[key] =
      value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
};

/**
 * A JSON-lines logger on stdout with pino's call shape, for the projector service.
 *
 * @example
 * const logger = createJsonLogger('info');
 * logger.info({ projection: 'invoices' }, 'took the lease');
 */
export const createJsonLogger = (
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): ProjectionLogger => {
  const at = (name: Exclude<LogLevel, 'silent'>) => (data: object, message?: string) => {
    if (levels[name] < levels[level]) return;
    write(
      JSON.stringify(
        {
          level: name,
          time: new Date().toISOString(),
          ...serialise(data),
          ...(message ? { msg: message } : {}),
        },
        (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
      ),
    );
  };
  return { info: at('info'), warn: at('warn'), error: at('error') };
};
