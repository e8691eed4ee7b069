// The gateway speaks Bahasa Indonesia and English: the console, the checkout and link pages and the mails.
// Each page's (or mail's) words live in a file beside it, written with defineMessages, which makes the
// compiler check that both languages have every key. The formatters are in format.ts, the texts shared by
// several pages (statuses, reasons, error codes) in shared-texts.ts.

export type Lang = 'en' | 'id';
export const LANGS: readonly Lang[] = ['en', 'id'];
export const LANG_COOKIE = 'qg_lang';

export interface Messages<K extends string> {
  en: Record<K, string>;
  id: Record<K, string>;
}

export function defineMessages<K extends string>(en: Record<K, string>, id: Record<NoInfer<K>, string>): Messages<K> {
  return { en, id };
}

/** Text by key in the page's language; `{name}` in the text is replaced by params.name. */
export type Translate<K extends string> = (key: K, params?: Record<string, string | number>) => string;

export function translator<K extends string>(messages: Messages<K>, lang: Lang): Translate<K> {
  const table = messages[lang];
  return (key, params) => {
    const text = table[key];
    return params
      ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole))
      : text;
  };
}

/**
 * The language a request asked for: the switch's cookie when set, else the first of Accept-Language's
 * languages (by weight) that the console speaks, else English.
 */
export function pickLang(cookie: string | undefined, acceptLanguage: string | undefined): Lang {
  if (cookie === 'en' || cookie === 'id') return cookie;
  if (!acceptLanguage) return 'en';
  const ranked = acceptLanguage
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((l) => l.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const base = tag.split('-')[0];
    // "in" is the old code for Indonesian, still sent by some Android versions.
    if (base === 'id' || base === 'in') return 'id';
    if (base === 'en') return 'en';
  }
  return 'en';
}
