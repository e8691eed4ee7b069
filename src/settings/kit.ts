// The kit every settings module declares its settings with: one entry per environment variable (name,
// parser, default, one-line doc), gathered into one registry by settings/all.ts. Parsing is strict: a typo
// in a number or a flag is a start-up error naming the variable, never a silent default.
export type Env = Record<string, string | undefined>;

/** Reads another setting of the same group (parsed once, whatever the order of the entries). */
export type Get<C> = <K extends keyof C>(field: K) => C[K];

export interface Setting<T, C = unknown> {
  /** The environment variable. */
  readonly name: string;
  /** The default as docs/configuration.md's table shows it (without backticks). */
  readonly shown: string;
  /** One line: what it sets. docs/configuration.md's table says more. */
  readonly doc: string;
  /** `raw` is the variable's value, undefined when it is not set. */
  read(raw: string | undefined, get: Get<C>): T;
}

/** One entry per field of a settings interface: the compiler checks none is missing or mistyped. */
export type SettingsOf<C> = { [K in keyof C]-?: Setting<C[K], C> };

/** A bound or default that depends on another setting (AMOUNT_MIN is at most AMOUNT_MAX). */
type Bound<C> = number | ((get: Get<C>) => number);

const at = <C>(bound: Bound<C>, get: Get<C>): number => (typeof bound === 'number' ? bound : bound(get));

export function wholeNumber<C>(
  name: string,
  doc: string,
  fallback: Bound<C>,
  min: Bound<C>,
  max: Bound<C>,
  shown?: string,
): Setting<number, C> {
  return {
    name,
    doc,
    shown: shown ?? String(fallback),
    read(raw, get) {
      if (raw === undefined || raw === '') return at(fallback, get);
      if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
      const value = Number(raw);
      const [low, high] = [at(min, get), at(max, get)];
      if (value < low || value > high) throw new Error(`${name} must be between ${low} and ${high}, got ${value}`);
      return value;
    },
  };
}

export function flag(name: string, doc: string, fallback: boolean): Setting<boolean> {
  return {
    name,
    doc,
    shown: String(fallback),
    read(raw) {
      if (raw === undefined || raw === '') return fallback;
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      throw new Error(`${name} must be true or false, got ${JSON.stringify(raw)}`);
    },
  };
}

export function oneOf<T extends string, C>(
  name: string,
  doc: string,
  choices: readonly T[],
  fallback: T | ((get: Get<C>) => T),
  shown?: string,
): Setting<T, C> {
  return {
    name,
    doc,
    shown: shown ?? String(fallback),
    read(raw, get) {
      if (raw === undefined || raw === '') return typeof fallback === 'function' ? fallback(get) : fallback;
      if (!(choices as readonly string[]).includes(raw))
        throw new Error(`${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
      return raw as T;
    },
  };
}

/** Free text; empty counts as unset (null). */
export function optionalText(name: string, doc: string, shown = 'unset'): Setting<string | null> {
  return { name, doc, shown, read: (raw) => raw || null };
}

/** Free text with a default; empty counts as unset. */
export function text(name: string, doc: string, fallback: string): Setting<string> {
  return { name, doc, shown: fallback, read: (raw) => raw || fallback };
}
