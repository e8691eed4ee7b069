// Small helpers the payments, webhooks and sources pages share.

/** Every value of a form field that may repeat (checkboxes): absent is none, non-text values are skipped. */
export function fieldList(body: unknown, name: string): string[] {
  if (body === null || typeof body !== 'object') return [];
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A query parameter as one string, or null when absent or repeated. */
export function queryValue(query: unknown, name: string): string | null {
  if (query === null || typeof query !== 'object') return null;
  const value = (query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : null;
}
