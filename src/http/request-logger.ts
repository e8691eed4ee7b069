import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/**
 * Fastify gives every request a child logger carrying the request id, and pino builds it at once (a new
 * object with its bindings serialised to JSON), although nearly every request logs only its access
 * line, which app.ts writes through the root logger with the id in it. This stands in for the child and
 * builds it on the first use, so a line written through request.log is exactly what the child writes.
 * A route with its own log level or serializers gets its child at once, as before.
 */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  if (options && (options.level !== undefined || options.serializers !== undefined)) return parent.child(bindings, options);
  return new LazyChild(parent, bindings, options);
}

class LazyChild implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  // Each forwards its arguments untouched: pino's overloads (object first, message first, format
  // arguments) are resolved by the real child. Methods, not arrow fields: nothing is allocated per request.
  fatal(...args: unknown[]): void {
    (this.real.fatal as (...a: unknown[]) => void)(...args);
  }
  error(...args: unknown[]): void {
    (this.real.error as (...a: unknown[]) => void)(...args);
  }
  warn(...args: unknown[]): void {
    (this.real.warn as (...a: unknown[]) => void)(...args);
  }
  info(...args: unknown[]): void {
    (this.real.info as (...a: unknown[]) => void)(...args);
  }
  debug(...args: unknown[]): void {
    (this.real.debug as (...a: unknown[]) => void)(...args);
  }
  trace(...args: unknown[]): void {
    (this.real.trace as (...a: unknown[]) => void)(...args);
  }
  silent(...args: unknown[]): void {
    (this.real.silent as (...a: unknown[]) => void)(...args);
  }
}
