// Stand-in until the image reader lands (branch qr-image: services/merchants/preview-merchant-qris.ts).
import { AppError } from '../../../domain/errors.js';
import { parseQris } from '../../../domain/qris/index.js';
import type { Deps } from '../../../services/deps.js';

export interface QrisPreview {
  payload: string;
  merchantName: string;
  city: string;
  nmid: string | null;
  acquirer: string | null;
  isStatic: boolean;
  crcValid: boolean;
}

export async function previewQris(_deps: Deps, input: { image: Uint8Array } | { payload: string }): Promise<QrisPreview> {
  if ('image' in input) throw new AppError('invalid_parameter', 'reading images is not available yet', { param: 'image' });
  const parsed = parseQris(input.payload.trim());
  return {
    payload: parsed.payload,
    merchantName: parsed.merchantName,
    city: parsed.merchantCity,
    nmid: parsed.nmid,
    acquirer: parsed.acquirer,
    isStatic: parsed.initiation !== 'dynamic' && parsed.amount === null,
    crcValid: true,
  };
}
