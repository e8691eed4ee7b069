import type { IncomingHttpHeaders } from 'node:http';

/** What a forwarder's post says about one notification, picked out of the shapes the apps send. */
export interface PostedNotification {
  title: string;
  text: string;
  app: string | null;
  /** The notification's time (ms) when the post carries one it can be read from. */
  when: number | null;
}

// The fields each value is read from, first present wins (SMS to URL Forwarder's template, MacroDroid and
// Tasker recipes, NotiForwarder-style bodies, fadzPay): see FEEDS.md.
const TITLE = ['title', 'from', 'notification.title'];
const TEXT = ['text', 'content', 'message', 'body', 'bigText', 'notification.text'];
const APP = ['package', 'packageName', 'app', 'source.package'];
const WHEN = ['when', 'timestamp', 'notification.timestamp'];

/**
 * The body as JSON or application/x-www-form-urlencoded (nested names as `notification.title` or
 * `notification[title]`); null when it is neither, or not an object.
 */
export function parsePostedNotification(body: Buffer, headers: IncomingHttpHeaders): PostedNotification | null {
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return null;
  }
  const type = String(headers['content-type'] ?? '').toLowerCase();
  let fields: Record<string, unknown> | null = null;
  if (type.includes('application/x-www-form-urlencoded')) {
    fields = {};
    for (const [name, value] of new URLSearchParams(decoded)) fields[name.replace(/\[([^\]]*)\]/g, '.$1')] ??= value;
  } else {
    try {
      const value: unknown = JSON.parse(decoded);
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        fields = value as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  if (fields === null) return null;
  const text = pick(fields, TEXT);
  // A grouped notification's lines are in bigText when the forwarder sends both.
  const big = pick(fields, ['bigText']);
  return {
    title: pick(fields, TITLE) ?? '',
    text: big !== null && text !== null && big.length > text.length && big.includes(text) ? big : (text ?? ''),
    app: pick(fields, APP),
    when: readWhen(pickRaw(fields, WHEN)),
  };
}

function pickRaw(fields: Record<string, unknown>, paths: readonly string[]): unknown {
  for (const path of paths) {
    let value: unknown = fields[path];
    if (value === undefined && path.includes('.')) {
      value = fields;
      for (const part of path.split('.'))
        value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
    }
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return null;
}

function pick(fields: Record<string, unknown>, paths: readonly string[]): string | null {
  const value = pickRaw(fields, paths);
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : null;
}

/** Unix seconds or milliseconds (a number or digits), or an ISO time; null for anything else. */
function readWhen(value: unknown): number | null {
  if (typeof value === 'number' || (typeof value === 'string' && /^\d{9,16}$/.test(value))) {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) return null;
    return Math.trunc(n < 1e11 ? n * 1000 : n);
  }
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}
