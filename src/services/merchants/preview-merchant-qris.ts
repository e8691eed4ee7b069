// What the console's "Add merchant" form shows before Save: the merchant's static QRIS, read from an
// uploaded picture of the sticker or pasted as text, taken apart field by field. A code Save would
// refuse (a dynamic one, a bad CRC) is still shown, with what is wrong, so the operator can see whether
// they photographed the wrong sticker or mistyped a character.
import { AppError } from '../../domain/errors.js';
import { parseMerchantQris } from '../../domain/merchant-qris.js';
import {
  describeQris,
  inspectQris,
  isStaticQris,
  type ParsedQris,
  type QrisFieldDescription,
} from '../../domain/qris/index.js';
import { readQrImage, type ReadQrImageOptions } from '../../imaging/read-qr-image.js';
import type { Deps } from '../deps.js';

export type PreviewMerchantQrisInput = { image: Uint8Array; imageOptions?: ReadQrImageOptions } | { payload: string };

export interface MerchantQrisPreview {
  /** The code's text, as read from the image or given (trimmed). */
  payload: string;
  source: 'image' | 'payload';
  merchantName: string;
  city: string;
  postalCode: string | null;
  countryCode: string;
  /** ISO 4217 numeric (360 = rupiah). */
  currency: string;
  mcc: string | null;
  /** National merchant id (tag 51's sub-tag 02, else another merchant account's). */
  nmid: string | null;
  /** The acquirer's reverse-domain id from the first merchant account template that is not QRIS's own. */
  acquirer: string | null;
  merchantPan: string | null;
  criteria: string | null;
  /** Tag 01: 11 static, 12 dynamic, null when absent. */
  pointOfInitiation: 'static' | 'dynamic' | null;
  /** Tag 54 in whole rupiah; a static code has none. */
  amount: number | null;
  /** Reusable for every charge: not marked dynamic and fixing no amount. */
  isStatic: boolean;
  crcValid: boolean;
  /** Whether Save (createMerchant) accepts this code, and if not, its reason (the invalid_qris message). */
  savable: boolean;
  refusal: string | null;
  /** Every field with its name, for a detailed view. */
  fields: QrisFieldDescription[];
}

/**
 * Reads and describes a merchant's QRIS without saving anything. Throws the image's errors
 * (readQrImage: image_too_large, image_unsupported, image_corrupt, qr_not_found, image_decode_timeout)
 * and invalid_qris when the text is not a QRIS at all (not TLV, required tags missing, ...); a code that
 * parses but is dynamic or has a bad CRC is returned, with savable false.
 */
export async function previewMerchantQris(_deps: Deps, input: PreviewMerchantQrisInput): Promise<MerchantQrisPreview> {
  const source = 'image' in input ? 'image' : 'payload';
  const payload = 'image' in input ? (await readQrImage(input.image, input.imageOptions)).trim() : input.payload.trim();
  let inspected: { parsed: ParsedQris; crcValid: boolean };
  try {
    inspected = inspectQris(payload);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (source === 'payload') throw new AppError('invalid_qris', err.message, { param: 'qris' });
    throw new AppError('invalid_qris', `the QR code in the image is not a QRIS: ${err.message}`, { param: 'image' });
  }
  const { parsed, crcValid } = inspected;
  let refusal: string | null = null;
  try {
    parseMerchantQris(payload);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    refusal = err.message;
  }
  return {
    payload,
    source,
    merchantName: parsed.merchantName,
    city: parsed.merchantCity,
    postalCode: parsed.postalCode,
    countryCode: parsed.countryCode,
    currency: parsed.currency,
    mcc: parsed.mcc,
    nmid: parsed.nmid,
    acquirer: parsed.acquirer,
    merchantPan: parsed.merchantPan,
    criteria: parsed.criteria,
    pointOfInitiation: parsed.initiation,
    amount: parsed.amount,
    isStatic: isStaticQris(parsed),
    crcValid,
    savable: refusal === null,
    refusal,
    fields: describeQris(parsed),
  };
}
