// Settings of merchants' alerts (Telegram, Discord, e-mail), parsed as strictly as the rest of the
// configuration (settings/all.ts gathers them into the registry; each is documented in docs/configuration.md's table).
import type { SettingsOf } from './kit.js';

export interface NotifySettings {
  /**
   * The base of Telegram's Bot API, without a trailing slash: alerts POST to {base}/bot{token}/sendMessage.
   * A setting so that a local Bot API server (or a test's stand-in) can take Telegram's place.
   */
  telegramApiUrl: string;
}

export const notifySettings = {
  telegramApiUrl: {
    name: 'TELEGRAM_API_URL',
    shown: 'https://api.telegram.org',
    doc: "the base of Telegram's Bot API that alerts are sent through",
    read(raw) {
      const text = (raw ?? '').trim() || 'https://api.telegram.org';
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        throw new Error(`TELEGRAM_API_URL must be an http(s) URL, got ${JSON.stringify(text)}`);
      }
      if (
        (url.protocol !== 'http:' && url.protocol !== 'https:') ||
        url.search !== '' ||
        url.hash !== '' ||
        url.username !== '' ||
        url.password !== ''
      ) {
        throw new Error(
          'TELEGRAM_API_URL must be an http(s) URL without user, query or fragment, such as https://api.telegram.org',
        );
      }
      return text.replace(/\/+$/, '');
    },
  },
} satisfies SettingsOf<NotifySettings>;
