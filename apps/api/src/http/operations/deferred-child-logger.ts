import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Bindings = Record<string, unknown>;
type LoggedLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
type LogArguments = [unknown, ...unknown[]];

/** A parent logger that can say whether a level would be written (pino's loggers can). */
interface LevelAwareLogger extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

const isLevelAware = (logger: FastifyBaseLogger): logger is LevelAwareLogger =>
  typeof Reflect.get(logger, 'isLevelEnabled') === 'function';

/**
 * A request's logger that builds its child of the app's logger (with the request id and any later bindings) only
 * when a line is actually written. Most requests log nothing at `warn`, and a pino child per request (its bindings
 * serialised, its redaction set up) is a measurable share of a request's CPU; a line that is written carries exactly
 * the bindings the eager child would have carried.
 */
class DeferredChildLogger implements FastifyBaseLogger {
  private built: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAwareLogger,
    private readonly bindings: Bindings,
  ) {}

  get level(): string {
    return (this.built ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: LogArguments): void {
    this.write('fatal', args);
  }

  error(...args: LogArguments): void {
    this.write('error', args);
  }

  warn(...args: LogArguments): void {
    this.write('warn', args);
  }

  info(...args: LogArguments): void {
    this.write('info', args);
  }

  debug(...args: LogArguments): void {
    this.write('debug', args);
  }

  trace(...args: LogArguments): void {
    this.write('trace', args);
  }

  silent(...args: LogArguments): void {
    this.write('silent', args);
  }

  /** A further child: still deferred, its bindings after this one's (as pino's child of a child writes them). */
  child(bindings: Bindings, options?: Parameters<FastifyBaseLogger['child']>[1]): FastifyBaseLogger {
    if (this.built !== undefined || hasOptions(options)) return this.logger().child(bindings, options);
    return new DeferredChildLogger(this.parent, { ...this.bindings, ...bindings });
  }

  private write(level: LoggedLevel, args: LogArguments): void {
    if (this.built === undefined && (level === 'silent' || !this.parent.isLevelEnabled(level))) return;
    const logger = this.logger();
    Reflect.apply(logger[level], logger, args);
  }

  private logger(): FastifyBaseLogger {
    this.built ??= this.parent.child(this.bindings);
    return this.built;
  }
}

const hasOptions = (options: object | undefined): boolean =>
  options !== undefined && Object.keys(options).length > 0;

/**
 * Fastify's `childLoggerFactory` with the child deferred until a request writes a line (see `DeferredChildLogger`).
 * A route with its own log level or serializers, or a parent that cannot tell its enabled levels, gets its child at
 * once, as Fastify's default factory gives it.
 *
 * @example
 * Fastify({ logger: { level: 'warn' }, childLoggerFactory: deferredChildLogger });
 */
export const deferredChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) =>
  hasOptions(options) || !isLevelAware(logger)
    ? logger.child(bindings, options)
    : new DeferredChildLogger(logger, bindings);
