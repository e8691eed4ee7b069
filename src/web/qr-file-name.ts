/**
 * The name a saved QR gets on the payer's phone: `qris-<merchant>-<total>.png`, so a gallery full of
 * screenshots still says which code pays whom and how much. Only a-z, 0-9 and dashes: a merchant's name
 * is typed by people ("Kopi Café & Co."), and a download name must be safe on every phone's file system.
 */
export function qrFileName(merchantName: string, total: number): string {
  const merchant = merchantName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `qris-${merchant || 'merchant'}-${total}.png`;
}
