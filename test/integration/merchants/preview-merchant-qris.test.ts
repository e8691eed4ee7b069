import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeQrImageReaders } from '../../../src/imaging/read-qr-image.js';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { previewMerchantQris } from '../../../src/services/merchants/preview-merchant-qris.js';
import { createTestContext, type TestContext, vectors } from '../../helpers/context.js';
import { renderCleanPng, renderPhotoJpeg } from '../../helpers/qr-photo.js';

const warung = vectors.vectors[0]!;
const kopi = vectors.vectors[2]!;
/** The same code with a CRC that does not match it. */
const badCrc = `${warung.static.slice(0, -4)}${warung.static.endsWith('0000') ? '0001' : '0000'}`;

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});

afterAll(async () => {
  await closeQrImageReaders();
  await ctx.close();
});

async function failure(promise: Promise<unknown>): Promise<{ code: string; param?: string; message: string }> {
  return promise.then(
    () => ({ code: 'resolved', message: '' }),
    (err: { code: string; param?: string; message: string }) => err,
  );
}

describe('previewMerchantQris', () => {
  it('takes a pasted static code apart, and Save accepts it with the same fields', async () => {
    const preview = await previewMerchantQris(ctx.deps, { payload: `  ${warung.static}\n` });
    expect(preview).toMatchObject({
      payload: warung.static,
      source: 'payload',
      merchantName: 'Warung Contoh',
      city: 'JAKARTA',
      postalCode: '10110',
      countryCode: 'ID',
      currency: '360',
      mcc: '5812',
      nmid: 'ID1020000000001',
      acquirer: 'ID.CO.EXAMPLEPAY.WWW',
      criteria: 'UMI',
      pointOfInitiation: 'static',
      amount: null,
      isStatic: true,
      crcValid: true,
      savable: true,
      refusal: null,
    });
    expect(preview.fields.find((f) => f.tag === '59')).toMatchObject({ name: 'merchant name', value: 'Warung Contoh' });
    const saved = await createMerchant(ctx.deps, { name: 'Warung', qris: preview.payload });
    expect(saved).toMatchObject({
      merchant_name: preview.merchantName,
      merchant_city: preview.city,
      nmid: preview.nmid,
      acquirer: preview.acquirer,
    });
  });

  it('reads the code from an uploaded image: a clean PNG and a phone photo', async () => {
    const fromPng = await previewMerchantQris(ctx.deps, { image: await renderCleanPng(warung.static) });
    expect(fromPng).toMatchObject({
      source: 'image',
      payload: warung.static,
      merchantName: 'Warung Contoh',
      savable: true,
    });
    const photo = await renderPhotoJpeg(kopi.static, {
      seed: 11,
      width: 1600,
      height: 1200,
      qrPixels: 500,
      rotation: 17,
      tilt: 0.2,
      lighting: 'gradient',
      noise: 10,
      blur: 0.6,
      quality: 80,
    });
    const fromPhoto = await previewMerchantQris(ctx.deps, { image: photo });
    expect(fromPhoto).toMatchObject({
      payload: kopi.static,
      merchantName: 'Kopi & Roti "Pagi"',
      city: 'BANDUNG',
      isStatic: true,
      savable: true,
    });
  });

  it('shows a dynamic code as such, and Save refuses it for the reason shown', async () => {
    const dynamic = warung.cases[1]!.dynamic;
    const preview = await previewMerchantQris(ctx.deps, { payload: dynamic });
    expect(preview).toMatchObject({
      isStatic: false,
      crcValid: true,
      pointOfInitiation: 'dynamic',
      amount: 1500,
      savable: false,
    });
    const refused = await failure(createMerchant(ctx.deps, { name: 'X', qris: dynamic }));
    expect(refused.code).toBe('invalid_qris');
    expect(preview.refusal).toBe(refused.message);
  });

  it('shows a code with a bad CRC as such, and Save refuses it for the reason shown', async () => {
    const preview = await previewMerchantQris(ctx.deps, { payload: badCrc });
    expect(preview).toMatchObject({ merchantName: 'Warung Contoh', isStatic: true, crcValid: false, savable: false });
    expect(preview.refusal).toMatch(/bad CRC/);
    const refused = await failure(createMerchant(ctx.deps, { name: 'X', qris: badCrc }));
    expect(preview.refusal).toBe(refused.message);
  });

  it('refuses text that is not a QRIS, naming where it came from', async () => {
    expect(await failure(previewMerchantQris(ctx.deps, { payload: 'hello' }))).toMatchObject({
      code: 'invalid_qris',
      param: 'qris',
    });
    const other = await failure(
      previewMerchantQris(ctx.deps, { image: await renderCleanPng('https://example.com/menu') }),
    );
    expect(other).toMatchObject({ code: 'invalid_qris', param: 'image' });
    expect(other.message).toMatch(/^the QR code in the image is not a QRIS/);
  });

  it("passes the image reader's errors on", async () => {
    expect(await failure(previewMerchantQris(ctx.deps, { image: Buffer.from('not an image') }))).toMatchObject({
      code: 'image_unsupported',
      param: 'image',
    });
    const png = await renderCleanPng(warung.static);
    expect(await failure(previewMerchantQris(ctx.deps, { image: png, imageOptions: { maxBytes: 100 } }))).toMatchObject(
      { code: 'image_too_large' },
    );
  });
});
