/** Feed URLs often carry an account's token in the query: values are masked, names kept. */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = '***';
      url.password = '';
    }
    for (const key of [...new Set(url.searchParams.keys())]) url.searchParams.set(key, '***');
    return url.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return '***';
  }
}
