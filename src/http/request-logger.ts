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
export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  if (options && (options.level !== undefined || options.serializers !== undefined))
    return parent.child(bindings, options);
  return new LazyChild(parent, bindings, options);
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LevelMethods = Pick<FastifyBaseLogger, (typeof LEVELS)[number]>;

// The level methods are added to the prototype below (declaration merging gives them their types).
// biome-ignore lint/correctness/noUnusedVariables: the interface exists to merge with the class.
interface LazyChild extends LevelMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged methods are defined on the prototype below.
class LazyChild implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  /** The child itself, made on the first call that needs it. */
  get real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
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
}

// Each level method forwards its arguments untouched (pino's overloads, object first, message first,
// format arguments, are resolved by the real child). On the prototype, so nothing is allocated per request.
for (const level of LEVELS) {
  LazyChild.prototype[level] = function (this: LazyChild, ...args: unknown[]): void {
    (this.real[level] as (...a: unknown[]) => void)(...args);
  } as LevelMethods[typeof level];
}
