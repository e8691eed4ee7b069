/**
 * A `Retry-After` header as milliseconds from now: delta-seconds or an HTTP date (RFC 9110). Null when
 * absent or malformed; at most `maxMs`; a date in the past is zero. Webhook deliveries and feed polls
 * each pass their own cap.
 */
export function parseRetryAfter(header: string | undefined | null, now: number, maxMs: number): number | null {
  if (header === undefined || header === null) return null;
  const text = header.trim();
  let ms: number;
  if (/^[0-9]{1,10}$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // Only the IMF-fixdate shape and its obsolete cousins have a comma or spaces and letters; a bare
    // number with a sign or fraction is malformed, not a date.
    if (!/[A-Za-z]/.test(text)) return null;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), maxMs);
}
