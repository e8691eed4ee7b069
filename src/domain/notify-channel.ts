// Merchants' alert channels (Telegram, Discord, e-mail): what an operator or merchant types when adding
// one, checked and put in its stored form, and how a stored secret is shown. Pure.
import { AppError } from './errors.js';
import { randomBase62, timePrefix } from './ids.js';
import type { IpNetwork } from './ip-networks.js';
import { validateWebhookUrl } from './webhook-url.js';

export const NOTIFY_CHANNEL_TYPES = ['telegram', 'discord', 'email'] as const;
export type NotifyChannelType = (typeof NOTIFY_CHANNEL_TYPES)[number];

export const NOTIFY_LANGUAGES = ['id', 'en'] as const;
export type NotifyLanguage = (typeof NOTIFY_LANGUAGES)[number];

/** What an alert is about; `test` is the "Send test" button's. */
export const NOTIFY_KINDS = ['payment_received', 'payment_unmatched', 'webhook_failing', 'test'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

export const newNotifyChannelId = (): string => `nch_${randomBase62(16)}`;
export const newNotifyDeliveryId = (): string => `ndl_${timePrefix()}${randomBase62(20)}`;
export const newNotifyAttemptId = (): string => `nat_${timePrefix()}${randomBase62(20)}`;

export const NOTIFY_CHANNEL_ID = /^nch_[0-9A-Za-z]{1,64}$/;

/** A channel as it is stored: the secret is the bot token (telegram) or the webhook URL (discord). */
export interface NotifyChannelInput {
  type: NotifyChannelType;
  language: NotifyLanguage;
  secret: string | null;
  chatId: string | null;
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });

export function parseChannelType(raw: string | undefined): NotifyChannelType {
  const type = (raw ?? '').trim().toLowerCase();
  if (!(NOTIFY_CHANNEL_TYPES as readonly string[]).includes(type)) {
    throw invalid('type', `type must be one of ${NOTIFY_CHANNEL_TYPES.join(', ')}`);
  }
  return type as NotifyChannelType;
}

/** Empty means Bahasa Indonesia, the default. */
export function parseNotifyLanguage(raw: string | undefined): NotifyLanguage {
  const lang = (raw ?? '').trim().toLowerCase();
  if (lang === '') return 'id';
  if (lang !== 'id' && lang !== 'en') throw invalid('language', 'language must be id or en');
  return lang;
}

/**
 * A Telegram bot token as @BotFather gives it: the bot's numeric id, a colon, and 30 or more characters
 * of letters, digits, `_` and `-`. Checked so that a token pasted with a space or a line break fails now,
 * not as failed alerts; it also keeps the token safe to put in a URL path.
 */
export function parseBotToken(raw: string | undefined): string {
  const token = (raw ?? '').trim();
  if (!/^[0-9]{1,20}:[A-Za-z0-9_-]{30,100}$/.test(token)) {
    throw invalid('bot_token', 'bot token must look like 123456789:AA... as @BotFather gives it');
  }
  return token;
}

/** A Telegram chat id (a number, negative for groups) or a public channel's @username. */
export function parseChatId(raw: string | undefined): string {
  const chat = (raw ?? '').trim();
  if (!/^-?[0-9]{1,20}$/.test(chat) && !/^@[A-Za-z][A-Za-z0-9_]{3,31}$/.test(chat)) {
    throw invalid('chat_id', 'chat id must be a number (negative for groups) or a channel @username');
  }
  return chat;
}

/** A Discord webhook URL, held to the same rules as a webhook endpoint's (https or http, no private address unless allowed). */
export function parseDiscordUrl(raw: string | undefined, allow: readonly IpNetwork[]): string {
  const text = (raw ?? '').trim();
  if (text === '') throw invalid('url', 'url is required for a discord channel');
  return validateWebhookUrl(text, allow);
}

/** The whole of a new channel from what was typed; fields another type takes are refused, not ignored. */
export function parseNotifyChannel(
  input: { type?: string; language?: string; botToken?: string; chatId?: string; url?: string },
  allow: readonly IpNetwork[],
): NotifyChannelInput {
  const type = parseChannelType(input.type);
  const language = parseNotifyLanguage(input.language);
  const given = (v: string | undefined) => v !== undefined && v.trim() !== '';
  const refuse = (field: string, param: string) => {
    throw invalid(param, `${field} does not apply to a ${type} channel`);
  };
  if (type !== 'telegram' && given(input.botToken)) refuse('bot token', 'bot_token');
  if (type !== 'telegram' && given(input.chatId)) refuse('chat id', 'chat_id');
  if (type !== 'discord' && given(input.url)) refuse('url', 'url');
  if (type === 'telegram')
    return { type, language, secret: parseBotToken(input.botToken), chatId: parseChatId(input.chatId) };
  if (type === 'discord') return { type, language, secret: parseDiscordUrl(input.url, allow), chatId: null };
  return { type, language, secret: null, chatId: null };
}

/**
 * A secret as lists show it after saving: enough to tell two apart, never enough to use. A bot token
 * keeps its bot id and last four characters; a Discord URL its host and the last four characters of
 * its token.
 */
export function maskSecret(type: NotifyChannelType, secret: string | null): string {
  if (secret === null) return '';
  const tail = secret.slice(-4);
  if (type === 'telegram') {
    const botId = secret.split(':')[0] ?? '';
    return `${botId}:••••${tail}`;
  }
  try {
    const url = new URL(secret);
    return `${url.protocol}//${url.host}/••••${tail}`;
  } catch {
    return `••••${tail}`;
  }
}
