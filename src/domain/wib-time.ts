/** Payers read Western Indonesian Time (UTC+7, no daylight saving): "22/11/2026 11:27 WIB". */
export function formatWib(iso: string): string {
  const d = new Date(Date.parse(iso) + 7 * 3600 * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} WIB`;
}
