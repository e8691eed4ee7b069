import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestApp, seedMerchant, vectors, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient, csrfOf } from '../../helpers/console.js';
import { buildQris, parseQris } from '../../../src/domain/qris/index.js';
import { closeQrImageReaders } from '../../../src/imaging/read-qr-image.js';
import { AppError } from '../../../src/domain/errors.js';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { qrisErrorWords } from '../../../src/web/console/pages/merchants.js';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { api, multipart, postPreview } from '../../helpers/console-forms.js';
import { photoVariant, renderPhotoJpeg } from '../../helpers/qr-photo.js';

const STATIC_1 = vectors.vectors[1]!.static;
const STATIC_2 = vectors.vectors[2]!.static;
/** The first vector's static QRIS with another name in tag 59. */
const qrisNamed = (name: string) =>
  buildQris(parseQris(STATIC_1).fields.map((f) => (f.tag === '59' ? { tag: '59', value: name } : f)));
/** A page's <main>. */
const mainOf = (body: string) => /<main id="content">([\s\S]*)<\/main>/.exec(body)?.[1] ?? '';
const DYNAMIC = vectors.vectors[0]!.cases[0]!.dynamic;
const BAD_CRC = vectors.invalid.find((v) => v.why === 'wrong CRC')!.payload;

/** A plain white picture: a valid PNG with no QR code in it. */
const whitePng = () =>
  sharp({ create: { width: 400, height: 300, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();

/** A single white pixel. */
const dotPng = () =>
  sharp({ create: { width: 1, height: 1, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();

const alertOf = (body: string) => /<p class="notice error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
const statusOf = (body: string) => /<p class="notice success" role="status">([^<]*)/.exec(body)?.[1];

describe('console merchants', () => {
  let t: TestApp;
  afterEach(async () => t?.close());
  afterAll(() => closeQrImageReaders());

  async function operator(): Promise<ConsoleClient> {
    await addOperator(t.deps);
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('ops@example.test')).statusCode).toBe(303);
    return c;
  }

  // The logged-out pages: route-common.test.ts.
  it('sends a logged-out visitor to the login form from every action', async () => {
    t = await createTestApp();
    for (const url of [
      '/dashboard/merchants',
      '/dashboard/merchants/preview',
      `/dashboard/merchants/${t.merchant.id}/disable`,
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=x',
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toMatch(/^\/dashboard\?next=/);
    }
    expect((await t.deps.db.selectFrom('merchants').select('id').execute()).length).toBe(1);
  });

  it('lists every merchant for an operator, with what its QRIS says, and links to adding one', async () => {
    t = await createTestApp();
    await seedMerchant(t.deps, 2, 'Kopi <b>Pagi</b>');
    const c = await operator();
    const page = await c.get('/dashboard/merchants');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Merchants</h1>');
    expect(page.body).toContain('<a class="button" href="/dashboard/merchants/new">Add merchant</a>');
    expect(page.body).toContain('Test Merchant');
    expect(page.body).toContain('Warung Contoh');
    expect(page.body).toContain('ID1020000000001');
    expect(page.body).toContain('ID.CO.EXAMPLEPAY.WWW');
    // Names from the database and from the QRIS are escaped.
    expect(page.body).toContain('Kopi &lt;b&gt;Pagi&lt;/b&gt;');
    expect(page.body).toContain('Kopi &amp; Roti &quot;Pagi&quot;');
    expect(page.body).not.toContain('<b>Pagi</b>');
    expect(page.body).toMatch(/<th>State<\/th>/);
  });

  it("calls a merchant by the gateway's name, with the QRIS's name beside it where the two differ, and says which is which", async () => {
    t = await createTestApp();
    const same = await createMerchant(t.deps, { name: 'WARUNG SAMA', qris: qrisNamed('WARUNG SAMA') });
    const c = await operator();
    const list = mainOf((await c.get('/dashboard/merchants')).body);
    const rowOf = (id: string) =>
      new RegExp(`<tr><td data-label="Name"><a href="/dashboard/merchants/${id}">[\\s\\S]*?</tr>`).exec(list)?.[0] ??
      '';
    expect(rowOf(t.merchant.id)).toContain(
      '>Test Merchant</a><span class="muted qris-name"> QRIS name: Warung Contoh</span></td>',
    );
    expect(rowOf(same.id)).toContain('>WARUNG SAMA</a></td>');
    expect(list).not.toContain('<th>Name in the QRIS</th>');

    const detail = mainOf((await c.get(`/dashboard/merchants/${t.merchant.id}`)).body);
    expect(detail).toContain(
      '<h1>Test Merchant</h1>\n<p class="muted">QRIS name: Warung Contoh. The name above is what this console calls',
    );
    expect(detail).toContain(
      'payers see the name in its QRIS, on the checkout page, in their e-mails and in their bank app.',
    );
    const sameDetail = mainOf((await c.get(`/dashboard/merchants/${same.id}`)).body);
    expect(sameDetail).not.toContain('QRIS name:');
    // The payer's page names the merchant as its QRIS does.
    const created = await t.app.inject({
      url: '/api/payment-gateway/cqris?amount=20000',
      headers: { 'x-api-key': t.testKey },
    });
    const checkout = (await t.app.inject({ url: `/checkout/${created.json().data.trxid}` })).body;
    expect(checkout).toContain('<h1>Warung Contoh</h1>');
    expect(checkout).not.toContain('Test Merchant');
  });

  it('shows a merchant user only its own merchants, and 404s for everything else', async () => {
    t = await createTestApp();
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = new ConsoleClient(t.app);
    await c.logIn('shop@example.test');
    const list = await c.get('/dashboard/merchants');
    expect(list.body).toContain('Test Merchant');
    expect(list.body).not.toContain('Other Shop');
    expect(list.body).not.toContain('TOKO SEMBAKO');
    expect(list.body).not.toContain('Add merchant');
    expect((await c.get(`/dashboard/merchants/${t.merchant.id}`)).statusCode).toBe(200);
    const own = await c.get(`/dashboard/merchants/${t.merchant.id}`);
    expect(own.body).not.toContain('Disable merchant');
    expect(own.body).not.toContain('/rename');
    for (const url of [
      `/dashboard/merchants/${other.merchant.id}`,
      '/dashboard/merchants/new',
      '/dashboard/merchants/mch_nosuchmerchant',
    ]) {
      const res = await c.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toContain('There is nothing here, or it is not yours to see.');
    }
    // Merchants are changed by operators only: a merchant user's own merchant is a 404 to these too.
    for (const id of [other.merchant.id, t.merchant.id]) {
      expect((await c.post(`/dashboard/merchants/${id}/rename`, { name: 'Mine now' })).statusCode).toBe(404);
      expect((await c.post(`/dashboard/merchants/${id}/disable`, {})).statusCode).toBe(404);
    }
    expect((await c.post('/dashboard/merchants', { name: 'New', qris: STATIC_2 })).statusCode).toBe(404);
    expect((await postPreview(t, c, { name: 'New', qris: STATIC_2 })).statusCode).toBe(404);
    const names = (
      await t.deps.db.selectFrom('merchants').select(['name', 'disabled_at']).orderBy('name').execute()
    ).map((m) => [m.name, m.disabled_at]);
    expect(names).toEqual([
      ['Other Shop', null],
      ['Test Merchant', null],
    ]);
  });

  it('adds a merchant from a pasted payload: a preview first, nothing saved until Save, then audited', async () => {
    t = await createTestApp();
    const c = await operator();
    const form = await c.get('/dashboard/merchants/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('enctype="multipart/form-data"');
    expect(form.body).toContain('<label for="merchant-image">QRIS image</label>');
    expect(form.body).toMatch(/<input id="merchant-image" name="image" type="file" accept="image\/png,image\/jpeg"/);
    expect(form.body).toContain('<label for="merchant-name">Name</label>');
    expect(form.body).toContain('<label for="merchant-qris">QRIS payload</label>');

    const preview = await postPreview(t, c, { name: '  Sembako Makmur  ', qris: ` ${STATIC_1}\n` });
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain('<h1>Is this the right merchant?</h1>');
    expect(preview.body).toContain('TOKO SEMBAKO MAKMUR JAYA');
    expect(preview.body).toContain('SURABAYA');
    expect(preview.body).toContain('ID2021000000002');
    expect(preview.body).toContain('COM.EXAMPLEWALLET.WWW');
    expect(preview.body).toContain('<span class="badge ok">static</span>');
    expect(preview.body).toContain('<span class="badge ok">valid</span>');
    expect(preview.body).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+"/);
    expect(preview.body).toContain(`<input type="hidden" name="qris" value="${STATIC_1}">`);
    expect(preview.body).toContain('<input type="hidden" name="name" value="Sembako Makmur">');
    expect(await t.deps.db.selectFrom('merchants').select('id').execute()).toHaveLength(1);

    const saved = await c.post('/dashboard/merchants', {
      _csrf: csrfOf(preview.body),
      name: 'Sembako Makmur',
      qris: STATIC_1,
    });
    expect(saved.statusCode).toBe(303);
    const row = await t.deps.db
      .selectFrom('merchants')
      .selectAll()
      .where('name', '=', 'Sembako Makmur')
      .executeTakeFirstOrThrow();
    expect(saved.headers.location).toBe('/dashboard/merchants');
    expect(row).toMatchObject({
      merchant_name: 'TOKO SEMBAKO MAKMUR JAYA',
      merchant_city: 'SURABAYA',
      nmid: 'ID2021000000002',
      qris_static: STATIC_1,
    });
    const list = await c.get(saved.headers.location as string);
    expect(statusOf(list.body)).toContain('Merchant Sembako Makmur added.');
    expect(list.body).toContain('TOKO SEMBAKO MAKMUR JAYA');
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', row.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: 'user:ops@example.test',
      action: 'merchant.add',
      subject_type: 'merchant',
    });
  });

  it('also takes the pasted payload from a plain (not multipart) form', async () => {
    t = await createTestApp();
    const c = await operator();
    const res = await c.post('/dashboard/merchants/preview', { name: 'Kopi', qris: STATIC_2 });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Kopi &amp; Roti &quot;Pagi&quot;');
    expect(res.body).toContain(`value="${STATIC_2.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`);
  });

  it('shows each refusal on the form as a clear message, never a stack trace, and saves nothing', async () => {
    t = await createTestApp();
    const c = await operator();
    const cases: Array<[Record<string, string>, number, RegExp]> = [
      [{ name: 'X', qris: 'hello, I am not a QRIS' }, 400, /^This is not a valid QRIS: /],
      [{ name: 'X', qris: DYNAMIC }, 422, /^This QRIS is dynamic: it fixes one amount\./],
      [{ name: 'X', qris: BAD_CRC }, 422, /^The QRIS checksum \(CRC\) is wrong/],
      [{ name: 'X', qris: '   ' }, 400, /^Choose a QRIS image or paste its payload\.$/],
      [{ name: 'x'.repeat(101), qris: STATIC_1 }, 400, /^Give the merchant a name/],
    ];
    for (const [fields, status, message] of cases) {
      const res = await postPreview(t, c, fields);
      expect(res.statusCode, JSON.stringify(fields)).toBe(status);
      expect(alertOf(res.body), JSON.stringify(fields)).toMatch(message);
      expect(res.body).not.toMatch(/at .*\.ts:\d+|AppError/);
      // The form is shown again, with what was typed.
      expect(res.body).toContain('<label for="merchant-image">QRIS image</label>');
      if (fields.name!.trim() && fields.name!.length <= 100) expect(res.body).toContain(`value="${fields.name}"`);
      // A code that was read but would be refused shows what was read, and no Save.
      expect(res.body.includes('<h2>What was read</h2>'), JSON.stringify(fields)).toBe(status === 422);
      expect(res.body).not.toContain('>Save</button>');
    }
    const dynamic = await postPreview(t, c, { name: 'X', qris: DYNAMIC });
    expect(dynamic.body).toContain('<span class="badge failed">dynamic</span>');
    const badCrc = await postPreview(t, c, { name: 'X', qris: BAD_CRC });
    expect(badCrc.body).toContain('<span class="badge failed">invalid</span>');
    expect(await t.deps.db.selectFrom('merchants').select('id').execute()).toHaveLength(1);
  });

  it('reads the QRIS from an uploaded PNG and from a phone photo (JPEG)', async () => {
    t = await createTestApp();
    const c = await operator();
    const png = await QRCode.toBuffer(STATIC_1, { type: 'png', errorCorrectionLevel: 'M', scale: 6 });
    const fromPng = await postPreview(
      t,
      c,
      { name: 'From PNG', qris: '' },
      { name: 'image', filename: 'qris.png', type: 'image/png', data: png },
    );
    expect(fromPng.statusCode).toBe(200);
    expect(fromPng.body).toContain('TOKO SEMBAKO MAKMUR JAYA');
    expect(fromPng.body).toContain(`<input type="hidden" name="qris" value="${STATIC_1}">`);
    // The image wins over a payload typed beside it.
    const photo = await renderPhotoJpeg(STATIC_2, photoVariant(5));
    const fromPhoto = await postPreview(
      t,
      c,
      { name: 'From photo', qris: STATIC_1 },
      { name: 'image', filename: 'IMG_0001.JPG', type: 'image/jpeg', data: photo },
    );
    expect(fromPhoto.statusCode).toBe(200);
    expect(fromPhoto.body).toContain('Kopi &amp; Roti &quot;Pagi&quot;');
    expect(fromPhoto.body).toContain('<span class="badge ok">static</span>');
    const saved = await c.post('/dashboard/merchants', {
      _csrf: csrfOf(fromPhoto.body),
      name: 'From photo',
      qris: STATIC_2,
    });
    expect(saved.statusCode).toBe(303);
  }, 60_000);

  it('refuses unreadable uploads with a clear message on the form', async () => {
    t = await createTestApp();
    const c = await operator();
    const blank = await QRCode.toBuffer('not a qris at all, just text', { type: 'png', scale: 4 });
    const cases: Array<[{ filename: string; type: string; data: Buffer }, number, string | RegExp]> = [
      [
        { filename: 'notes.txt', type: 'text/plain', data: Buffer.from('hello, this is text') },
        415,
        'This file is not a PNG or JPEG image.',
      ],
      [
        { filename: 'fake.png', type: 'image/png', data: Buffer.from('GIF89a not really') },
        415,
        'This file is not a PNG or JPEG image.',
      ],
      [
        { filename: 'cut.png', type: 'image/png', data: blank.subarray(0, 60) },
        422,
        'The image could not be decoded: the file is damaged or incomplete.',
      ],
      [
        { filename: 'white.png', type: 'image/png', data: await whitePng() },
        422,
        /^No QR code was found in the image\./,
      ],
      [{ filename: 'other.png', type: 'image/png', data: blank }, 400, /^This is not a valid QRIS: /],
      // issue 23, finding 10: a 1x1 PNG made the decoder throw, and the page answered 500.
      [{ filename: 'dot.png', type: 'image/png', data: await dotPng() }, 422, /^No QR code was found in the image\./],
    ];
    for (const [file, status, message] of cases) {
      const res = await postPreview(t, c, { name: 'Upload' }, { name: 'image', ...file });
      expect(res.statusCode, file.filename).toBe(status);
      if (typeof message === 'string') expect(alertOf(res.body), file.filename).toBe(message);
      else expect(alertOf(res.body), file.filename).toMatch(message);
      expect(res.body).toContain('value="Upload"');
    }
    expect(await t.deps.db.selectFrom('merchants').select('id').execute()).toHaveLength(1);
  }, 60_000);

  // issue 23, finding 10: the portal (a self-service user on SIGNUP=open) uploads through the same form.
  it("refuses a 1x1 PNG on the portal's form with the clear message, not a 500", async () => {
    // No mail goes out here: the user is added directly.
    t = await createTestApp({
      SIGNUP: 'open',
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'Gateway <noreply@gateway.test>',
    });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = new ConsoleClient(t.app);
    expect((await c.logIn('shop@example.test')).statusCode).toBe(303);
    const res = await postPreview(
      t,
      c,
      { name: 'Warung' },
      { name: 'image', filename: 'dot.png', type: 'image/png', data: await dotPng() },
    );
    expect(res.statusCode).toBe(422);
    expect(alertOf(res.body)).toMatch(/^No QR code was found in the image\./);
    expect(res.body).toContain('value="Warung"');
  });

  it('has its own words for each refusal of the image reader, in both languages', () => {
    const codes = [
      'image_unsupported',
      'image_too_large',
      'image_corrupt',
      'qr_not_found',
      'image_decode_timeout',
      'invalid_qris',
    ] as const;
    for (const lang of ['en', 'id'] as const) {
      const texts = codes.map((code) => qrisErrorWords(lang, new AppError(code, 'detail here')));
      expect(new Set(texts).size, lang).toBe(codes.length);
    }
    expect(qrisErrorWords('en', new AppError('image_decode_timeout', 'x'))).toBe(
      'Reading the image took too long. Try a smaller or sharper picture.',
    );
    expect(qrisErrorWords('id', new AppError('qr_not_found', 'x'))).toMatch(/^Tidak ada kode QR/);
  });

  it('refuses an upload over 15 MB on the form itself', async () => {
    t = await createTestApp();
    const c = await operator();
    const res = await postPreview(
      t,
      c,
      { name: 'Big' },
      { name: 'image', filename: 'huge.png', type: 'image/png', data: Buffer.alloc(15 * 1024 * 1024 + 10, 1) },
    );
    expect(res.statusCode).toBe(413);
    expect(alertOf(res.body)).toBe('The file is larger than 15 MB. Send a smaller picture.');
    expect(res.body).toContain('<label for="merchant-image">QRIS image</label>');
  });

  // issue 23, found by the route-table fuzz: a malformed multipart body (no boundary, a cut-off part)
  // answered 500 on every console form, logged in or not.
  it('refuses a malformed multipart form with 400, not 500, on any form', async () => {
    t = await createTestApp();
    const c = await operator();
    const token = csrfOf((await c.get('/dashboard')).body);
    const cut = multipart({ _csrf: token, name: 'Cut' });
    const bodies: Array<[string, string | Buffer]> = [
      ['multipart/form-data', 'name=x'],
      ['multipart/form-data; boundary=', '{}'],
      ['multipart/form-data; boundary=x', 'not multipart at all'],
      [cut.contentType, cut.payload.subarray(0, cut.payload.length - 20)],
    ];
    for (const url of ['/dashboard/merchants/preview', '/dashboard/keys', '/dashboard/reset', '/dashboard/login']) {
      for (const [type, payload] of bodies) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { cookie: c.jar.header(), 'content-type': type },
          payload,
        });
        expect(res.statusCode, `${url} ${type}`).toBe(400);
        expect(res.body).toContain('The form could not be read.');
      }
    }
  });

  it('takes the name the QRIS carries when the Name is left empty; one the gateway refuses goes back on the form (issue 26, item 17)', async () => {
    t = await createTestApp();
    const c = await operator();
    const form = await c.get('/dashboard/merchants/new');
    expect(form.body).toMatch(/<input id="merchant-name" name="name" value="" maxlength="100"/);
    const decoded = parseQris(STATIC_1).merchantName;
    const preview = await postPreview(t, c, { name: ' ', qris: STATIC_1 });
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain(`<dt>Name</dt><dd><strong>${decoded.replace(/"/g, '&quot;')}</strong></dd>`);
    const saved = await c.post('/dashboard/merchants', { name: decoded, qris: STATIC_1 }, '/dashboard/merchants/new');
    expect(saved.statusCode).toBe(303);
    // A name typed still wins.
    expect((await postPreview(t, c, { name: 'Kedai Saya', qris: STATIC_1 })).body).toContain(
      '<dt>Name</dt><dd><strong>Kedai Saya</strong></dd>',
    );

    // A QRIS whose name holds a domain: the form comes back with it, to be changed, and no Save.
    const linked = qrisNamed('WARUNG.EXAMPLE.COM');
    const refused = await postPreview(t, c, { name: '', qris: linked });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('value="WARUNG.EXAMPLE.COM"');
    expect(refused.body).toContain('role="alert"');
    expect(refused.body).not.toContain('>Save</button>');
  });

  it('checks the previewed payload again on Save: a tampered one is refused and nothing is saved', async () => {
    t = await createTestApp();
    const c = await operator();
    for (const qris of [DYNAMIC, BAD_CRC, `${STATIC_1}X`]) {
      const res = await c.post('/dashboard/merchants', { name: 'Tampered', qris }, '/dashboard/merchants/new');
      expect(res.statusCode).toBe(400);
      expect(alertOf(res.body)).toBeTruthy();
    }
    const noName = await c.post('/dashboard/merchants', { name: '', qris: STATIC_1 }, '/dashboard/merchants/new');
    expect(alertOf(noName.body)).toBe('Give the merchant a name of 1 to 100 characters.');
    expect(await t.deps.db.selectFrom('merchants').select('id').execute()).toHaveLength(1);
  });

  it('refuses a save or a change without its CSRF token', async () => {
    t = await createTestApp();
    const c = await operator();
    for (const url of [
      '/dashboard/merchants',
      `/dashboard/merchants/${t.merchant.id}/rename`,
      `/dashboard/merchants/${t.merchant.id}/disable`,
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { cookie: c.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: `name=Sneaky&qris=${encodeURIComponent(STATIC_1)}`,
      });
      expect(res.statusCode, url).toBe(403);
      expect(res.body).toContain('This form has expired');
    }
    const forged = multipart({ name: 'Sneaky', qris: STATIC_1 });
    const preview = await t.app.inject({
      method: 'POST',
      url: '/dashboard/merchants/preview',
      headers: { cookie: c.jar.header(), 'content-type': forged.contentType },
      payload: forged.payload,
    });
    expect(preview.statusCode).toBe(403);
    const rows = await t.deps.db.selectFrom('merchants').select(['name', 'disabled_at']).execute();
    expect(rows).toEqual([{ name: 'Test Merchant', disabled_at: null }]);
  });

  it('renames a merchant (audited), and refuses an empty name', async () => {
    t = await createTestApp();
    const c = await operator();
    const from = `/dashboard/merchants/${t.merchant.id}`;
    const detail = await c.get(from);
    expect(detail.body).toContain('<label for="rename-name">New name</label>');
    const res = await c.post(`/dashboard/merchants/${t.merchant.id}/rename`, { name: '  Warung Baru ' }, from);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(from);
    const after = await c.get(res.headers.location as string);
    expect(statusOf(after.body)).toBe('Renamed to Warung Baru.');
    expect(after.body).toContain('<h1>Warung Baru</h1>');
    const bad = await c.post(`/dashboard/merchants/${t.merchant.id}/rename`, { name: '' }, from);
    expect(bad.statusCode).toBe(400);
    expect(alertOf(bad.body)).toBe('Give the merchant a name of 1 to 100 characters.');
    expect((await c.post('/dashboard/merchants/mch_unknown/rename', { name: 'X' }, from)).statusCode).toBe(404);
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', t.merchant.id)
      .where('action', '!=', 'merchant.add')
      .execute();
    expect(audit.map((a) => [a.actor, a.action, JSON.parse(a.details!)])).toEqual([
      ['user:ops@example.test', 'merchant.rename', { from: 'Test Merchant', to: 'Warung Baru' }],
    ]);
  });

  // issue 23, finding 7: a merchant's name reaches payers in the gateway's mail, so no path may set one
  // that carries a link or an address.
  it('refuses a name with a link or an address on every path: add (preview and save), rename, the portal', async () => {
    t = await createTestApp({ SIGNUP: 'invite' });
    const c = await operator();
    const link = 'PERINGATAN: rekening Anda DIBLOKIR. Pulihkan di http://pulih.example';
    const linkWords = /name cannot contain a link or an address/;
    const preview = await postPreview(t, c, { name: link, qris: STATIC_1 });
    expect(preview.statusCode).toBe(400);
    expect(alertOf(preview.body)).toMatch(linkWords);
    expect(preview.body).not.toContain('>Save</button>');
    const saved = await c.post(
      '/dashboard/merchants',
      { name: 'Toko cs@bank.example', qris: STATIC_1 },
      '/dashboard/merchants/new',
    );
    expect(saved.statusCode).toBe(400);
    expect(alertOf(saved.body)).toMatch(linkWords);
    const from = `/dashboard/merchants/${t.merchant.id}`;
    const renamed = await c.post(`${from}/rename`, { name: 'Kunjungi www.toko.example' }, from);
    expect(renamed.statusCode).toBe(400);
    expect(alertOf(renamed.body)).toMatch(linkWords);

    await addMerchantUser(t.deps, [t.merchant.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const own = await shop.post(
      '/dashboard/merchants/preview',
      { name: 'Warung pulih．example', qris: STATIC_2 },
      '/dashboard/merchants/new',
    );
    expect(own.statusCode).toBe(400);
    expect(alertOf(own.body)).toMatch(linkWords);
    const ownSave = await shop.post(
      '/dashboard/merchants',
      { name: 'Warung 10.0.0.1', qris: STATIC_2 },
      '/dashboard/merchants/new',
    );
    expect(ownSave.statusCode).toBe(400);
    const rows = await t.deps.db.selectFrom('merchants').select('name').execute();
    expect(rows.map((r) => r.name)).toEqual(['Test Merchant']);
  });

  it('disabling a merchant makes the API refuse its keys with 403 merchant_disabled at once; enabling lets them in again', async () => {
    t = await createTestApp();
    const c = await operator();
    // Created and cached before the disable: the disable must not wait for the cache to run out.
    const created = await api(t, t.testKey);
    expect(created.statusCode).toBe(201);
    const trxid = created.json().data.trxid as string;
    const from = `/dashboard/merchants/${t.merchant.id}`;
    const detail = await c.get(from);
    expect(detail.body).toMatch(
      /data-confirm="Disable Test Merchant\? Its API keys will be refused until you enable it again\."/,
    );
    const off = await c.post(`/dashboard/merchants/${t.merchant.id}/disable`, {}, from);
    expect(off.statusCode).toBe(303);
    expect(off.headers.location).toBe(from);
    expect(statusOf((await c.get(off.headers.location as string)).body)).toContain('Merchant disabled');

    for (const res of [
      await api(t, t.testKey),
      await api(t, t.liveKey),
      await api(t, t.testKey, `/api/payment-gateway/cstatus?trxid=${trxid}`, 'GET'),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'merchant_disabled' } });
    }
    // Its rows stay: the list shows it as disabled, and the transaction is still there.
    expect((await c.get('/dashboard/merchants')).body).toContain('<span class="badge disabled">disabled</span>');
    expect(await t.deps.db.selectFrom('transactions').select('id').where('id', '=', trxid).execute()).toHaveLength(1);
    // A revoked key of a disabled merchant is still just an invalid key.
    expect((await api(t, 'sk_test_nonsense')).statusCode).toBe(401);

    const on = await c.post(`/dashboard/merchants/${t.merchant.id}/enable`, {}, from);
    expect(on.headers.location).toBe(from);
    expect((await api(t, t.testKey, `/api/payment-gateway/cstatus?trxid=${trxid}`, 'GET')).statusCode).toBe(200);
    expect((await api(t, t.liveKey)).statusCode).toBe(201);
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('subject_id', '=', t.merchant.id)
      .where('action', '!=', 'merchant.add')
      .orderBy('created_at')
      .orderBy('action')
      .execute();
    expect(audit).toEqual([
      { actor: 'user:ops@example.test', action: 'merchant.disable' },
      { actor: 'user:ops@example.test', action: 'merchant.enable' },
    ]);
  });

  it('the preview reads the same fields the saved merchant has', async () => {
    t = await createTestApp();
    const c = await operator();
    const parsed = parseQris(STATIC_2);
    const res = await postPreview(t, c, { name: 'Kopi', qris: STATIC_2 });
    for (const value of [parsed.merchantCity, parsed.nmid!, parsed.acquirer!]) expect(res.body).toContain(value);
  });
});
